// The part registry: one component per part type. renderPart switches on the
// closed set of part types exhaustively, so adding a type to the contract
// fails to compile until it has a component.

import { memo, type ComponentType } from "react";
import type { PartType } from "../timeline/types";
import type { PartProps } from "./types";
import { TextPart } from "./TextPart";
import { ReasoningPart } from "./ReasoningPart";
import { FilePart } from "./FilePart";
import { ToolUsePart } from "./ToolUsePart";
import { ToolResultPart } from "./ToolResultPart";
import { CompactPart } from "./CompactPart";
import { SystemStatusPart } from "./SystemStatusPart";
import "./parts.css";

export const PART_COMPONENTS: { [K in PartType]: ComponentType<PartProps> } = {
  text: TextPart,
  reasoning: ReasoningPart,
  file: FilePart,
  "tool-use": ToolUsePart,
  "tool-result": ToolResultPart,
  compact: CompactPart,
  "system-status": SystemStatusPart,
};

/** partComponent picks the component for a part type; unknown types (a newer backend) get null. */
export function partComponent(type: PartType): ComponentType<PartProps> | null {
  switch (type) {
    case "text":
    case "reasoning":
    case "file":
    case "tool-use":
    case "tool-result":
    case "compact":
    case "system-status":
      return PART_COMPONENTS[type];
    default: {
      const _exhaustive: never = type;
      void _exhaustive;
      return null;
    }
  }
}

function PartViewImpl(props: PartProps) {
  const C = partComponent(props.part.type);
  if (!C) {
    return <div className="jc-part jc-part--unknown">Unknown part type “{String(props.part.type)}”</div>;
  }
  return <C {...props} />;
}

/** Parts whose rendering depends only on the part (and the message's role). */
const SELF_CONTAINED = new Set<PartType>(["text", "reasoning", "file", "compact", "system-status"]);

/**
 * samePart: a self-contained part re-renders only when it changed. A delta
 * replaces only the part it grows (timeline appendDelta), so streaming text
 * re-renders that part, not the whole message. Tool parts read the
 * timeline state and always re-render with their message.
 */
export function samePart(a: PartProps, b: PartProps): boolean {
  return (
    SELF_CONTAINED.has(a.part.type) &&
    a.part === b.part &&
    a.depth === b.depth &&
    a.message.id === b.message.id &&
    a.message.role === b.message.role
  );
}

export const PartView = memo(PartViewImpl, samePart);
