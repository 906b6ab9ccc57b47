// The hand-written model types (timeline/types.ts) against the classes Wails
// generates from the Go structs (bridge/wailsjs/go/models.ts, `make
// bindings`): the same fields, what Go sends assignable to the hand-written
// type and each hand-written field type assignable back. A Go field added,
// renamed or retyped without updating types.ts fails `tsc --noEmit` here.

import type { agent, services } from "../bridge/wailsjs/go/models";
import type { PermissionAnswer } from "../features/task-view/api";
import type { Rule } from "../features/projects/PermissionRules";
import type * as T from "./types";

/** Data is the JSON shape of a generated class: its fields (methods
 * dropped), enums as their string values, recursively. */
type Data<X> = X extends (...a: never[]) => unknown
  ? never
  : X extends string
    ? `${X}`
    : X extends readonly (infer E)[]
      ? Data<E>[]
      : X extends object
        ? { [K in keyof X as X[K] extends (...a: never[]) => unknown ? never : K]: Data<X[K]> }
        : X;

/** Plain is a hand-written type as it can arrive from Go: a nil slice is
 * null on the wire, which the generated classes do not say. */
type Plain<X> = X extends readonly (infer E)[] ? Plain<E>[] : X extends object ? { [K in keyof X]: Plain<Exclude<X[K], null>> } : X;

/** Loose drops optionality, deeply: the reverse check compares field
 * types only (the hand-written types may leave a field Go always sends
 * optional, so that fixtures can omit it). */
type Loose<X> = X extends readonly (infer E)[] ? Loose<E>[] : X extends object ? { [K in keyof X]?: Loose<X[K]> } : X;

/** Agrees is true when generated A and hand-written B have the same keys,
 * what Go sends (A) is a B, and each B field's type is one Go can hold. */
type Agrees<A, B> = [keyof A] extends [keyof B]
  ? [keyof B] extends [keyof A]
    ? [A] extends [B]
      ? [Loose<B>] extends [Loose<A>]
        ? true
        : "a hand-written field type is not the generated one"
      : "the generated type is not assignable to the hand-written one"
    : { onlyInHandWritten: Exclude<keyof B, keyof A> }
  : { onlyInGenerated: Exclude<keyof A, keyof B> };

type Check<G, H> = Agrees<Data<G>, Plain<H>>;

test("the hand-written model types match the generated ones", () => {
  expectTypeOf<Check<agent.Part, T.Part>>().toEqualTypeOf<true>();
  expectTypeOf<Check<agent.Message, T.Message>>().toEqualTypeOf<true>();
  expectTypeOf<Check<agent.CostInfo, T.CostInfo>>().toEqualTypeOf<true>();
  expectTypeOf<Check<agent.TokenUsage, T.TokenUsage>>().toEqualTypeOf<true>();
  expectTypeOf<Check<agent.ModelUsage, T.ModelUsage>>().toEqualTypeOf<true>();
  expectTypeOf<Check<agent.TodoItem, T.TodoItem>>().toEqualTypeOf<true>();
  expectTypeOf<Check<agent.PatchHunk, T.PatchHunk>>().toEqualTypeOf<true>();
  expectTypeOf<Check<agent.StructuredResult, T.StructuredResult>>().toEqualTypeOf<true>();
  expectTypeOf<Check<agent.PermissionOption, T.PermissionOption>>().toEqualTypeOf<true>();
  expectTypeOf<Check<agent.QuestionOption, T.QuestionOption>>().toEqualTypeOf<true>();
  expectTypeOf<Check<agent.Question, T.Question>>().toEqualTypeOf<true>();
  expectTypeOf<Check<agent.Request, T.Request>>().toEqualTypeOf<true>();
  expectTypeOf<Check<services.PendingRequest, T.PendingRequest>>().toEqualTypeOf<true>();
  expectTypeOf<Check<services.QueuedMessage, T.QueuedMessage>>().toEqualTypeOf<true>();
  expectTypeOf<Check<services.PermissionDecision, T.PermissionDecision>>().toEqualTypeOf<true>();
  expectTypeOf<Check<services.PermissionRule, Rule>>().toEqualTypeOf<true>();
});

/** Sends is true when what the UI sends (hand-written H, narrower literal
 * unions) is a value of the generated argument type G. */
type Sends<H, G> = [keyof H] extends [keyof Data<G>]
  ? [H] extends [Data<G>]
    ? true
    : "the hand-written argument is not assignable to the generated one"
  : { onlyInHandWritten: Exclude<keyof H, keyof Data<G>> };

test("what the UI sends is what the Go services take", () => {
  expectTypeOf<Sends<PermissionAnswer, services.PermissionAnswer>>().toEqualTypeOf<true>();
});
