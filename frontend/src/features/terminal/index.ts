export { Terminal, type TerminalProps } from "./Terminal";
export { wailsTerminalApi, callService, decodeBase64, type TerminalApi, type TerminalExit, type TerminalOutput } from "./api";
