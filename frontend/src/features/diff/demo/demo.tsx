// A page that mounts the DiffView over the scripted fake GitApi, for the
// browser test (shoot.mjs) and screenshots: served by the Vite dev server
// at /src/features/diff/demo/index.html (not part of the app build).
// ?theme=dark picks the dark theme; window.__gitApi exposes the fake so
// the test can change the files "as the agent writes".

import { StrictMode } from "react";
import { createRoot } from "react-dom/client";
import { DiffView } from "../DiffView";
import { createFakeGitApi } from "../fake";
import "../../../styles/index.css";

const params = new URLSearchParams(location.search);
document.documentElement.dataset.theme = params.get("theme") === "dark" ? "dark" : "light";
const api = createFakeGitApi("demo-task");
(window as unknown as { __gitApi: typeof api }).__gitApi = api;

createRoot(document.getElementById("root")!).render(
  <StrictMode>
    <DiffView taskId="demo-task" api={api} pollMs={Number(params.get("poll") ?? 500)} defaultCommitMessage="Fix the login request" />
  </StrictMode>,
);
