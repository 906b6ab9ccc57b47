// perfMark replaces the page's previous performance mark of the same name.
// The user timing buffer has no limit: a mark made each time a task view
// opens (read by the benchmark page, src/perf) would otherwise pile up for
// as long as the app runs (make soak, issue 20).
export function perfMark(name: string, perf: Pick<Performance, "mark" | "clearMarks"> = performance): void {
  perf.clearMarks(name);
  perf.mark(name);
}
