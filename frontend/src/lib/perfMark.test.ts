import { perfMark } from "./perfMark";

describe("perfMark", () => {
  it("keeps one mark per name however often it is made", () => {
    performance.clearMarks();
    for (let i = 0; i < 5; i++) perfMark("jc:test:open");
    perfMark("jc:test:other");
    expect(performance.getEntriesByName("jc:test:open", "mark")).toHaveLength(1);
    expect(performance.getEntriesByName("jc:test:other", "mark")).toHaveLength(1);
  });

  it("keeps the latest one", () => {
    const calls: string[] = [];
    perfMark("a", { clearMarks: (n) => void calls.push(`clear ${n}`), mark: ((n: string) => void calls.push(`mark ${n}`)) as unknown as Performance["mark"] });
    expect(calls).toEqual(["clear a", "mark a"]);
  });
});
