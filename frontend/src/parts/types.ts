import type { Message, Part } from "../timeline/types";

/** PartProps are what every part component receives. */
export interface PartProps {
  part: Part;
  message: Message;
  /** Nesting depth (0 at top level, 1 inside a sub-agent, ...). */
  depth: number;
}
