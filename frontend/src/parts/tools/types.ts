import type { ReactNode } from "react";
import type { TimelineState, ToolView } from "../../timeline/state";
import type { Message } from "../../timeline/types";
import type { JsonObject } from "../util";
import type { ToolPhase } from "../toolWording";

export interface ToolProps {
  view: ToolView;
  input: JsonObject;
  /** The tool result as text ("" when none yet). */
  output: string;
  message: Message;
  depth: number;
  state: TimelineState;
  /** What really happened to the call (parts/toolWording). */
  phase?: ToolPhase;
}

/** ToolRenderer renders one kind of tool: a one-line summary and a body. */
export interface ToolRenderer {
  /** Label shown before the summary (e.g. "Ran", "Read"). */
  verb: (p: ToolProps) => string;
  summary: (p: ToolProps) => ReactNode;
  Body: (p: ToolProps) => ReactNode;
  /** Whether the card starts expanded. */
  defaultOpen?: (p: ToolProps) => boolean;
}
