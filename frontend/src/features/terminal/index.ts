export { Terminal, type TerminalProps } from "./Terminal";
export { wailsTerminalApi, callService, decodeBase64, type TerminalApi, type TerminalExit, type TerminalOutput } from "./api";
export { TaskTerminals } from "./TaskTerminals";
export { wailsTaskTerminalApi, type TaskTerminalApi, type TaskTerminalInfo, type TerminalSnapshot } from "./taskApi";
export { type Attached } from "./Terminal";
