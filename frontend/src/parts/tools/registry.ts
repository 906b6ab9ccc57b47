// The tool registry: one renderer per tool kind, and the generic renderer
// for everything else. The switch is exhaustive over ToolKind so a new kind
// in the contract must be mapped (possibly to the generic renderer).

import type { ToolKind } from "../../timeline/types";
import type { ToolRenderer } from "./types";
import { CommandTool } from "./CommandTool";
import { ReadTool } from "./ReadTool";
import { EditTool } from "./EditTool";
import { SearchTool } from "./SearchTool";
import { FetchTool } from "./FetchTool";
import { TodoTool } from "./TodoTool";
import { SkillTool } from "./SkillTool";
import { SubAgentTool } from "./SubAgentTool";
import { AskUserTool } from "./AskUserTool";
import { ThinkTool } from "./ThinkTool";
import { GenericTool } from "./GenericTool";

/** toolRenderer picks the renderer for a tool kind; unknown or missing kinds get the generic one. */
export function toolRenderer(kind: ToolKind | undefined): ToolRenderer {
  if (!kind) return GenericTool;
  switch (kind) {
    case "execute":
      return CommandTool;
    case "read":
      return ReadTool;
    case "edit":
      return EditTool;
    case "search":
      return SearchTool;
    case "fetch":
      return FetchTool;
    case "todo":
      return TodoTool;
    case "skill":
      return SkillTool;
    case "sub-agent":
      return SubAgentTool;
    case "ask-user":
      return AskUserTool;
    case "think":
      return ThinkTool;
    case "other":
      return GenericTool;
    default: {
      const _exhaustive: never = kind;
      void _exhaustive;
      return GenericTool;
    }
  }
}
