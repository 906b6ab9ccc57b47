// ProjectToolSettingsApi: a project's per-project tool settings (worktree
// setup: files to copy, setup command; the comparison check command of
// issue 17 lives beside them), GitService.SetupSettings/SetSetupSettings.

import { call } from "../../bridge/bound";
import * as GitService from "../../bridge/wailsjs/go/services/GitService";

export interface ProjectToolSettings {
  projectId: string;
  /** newline-separated globs copied into each new worktree. */
  copyGlobs: string;
  setupCommand: string;
  setupRequired: boolean;
  /** read-only: the command runs under /bin/sh (it uses shell syntax). */
  setupUsesShell: boolean;
}

export interface ProjectToolSettingsApi {
  get(projectId: string): Promise<ProjectToolSettings>;
  set(projectId: string, s: ProjectToolSettings): Promise<ProjectToolSettings>;
}

export const wailsProjectToolSettingsApi: ProjectToolSettingsApi = {
  get: (projectId) => call<ProjectToolSettings>(GitService.SetupSettings, "GitService.SetupSettings", projectId),
  set: (projectId, s) => call<ProjectToolSettings>(GitService.SetSetupSettings, "GitService.SetSetupSettings", projectId, s),
};
