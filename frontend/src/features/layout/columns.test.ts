import { defaultColumns, nextColumns } from "./columns";

test("the columns collapse below a width and the toggle cycles", () => {
  expect(defaultColumns(1920)).toBe("all");
  expect(defaultColumns(1280)).toBe("all");
  expect(defaultColumns(1000)).toBe("tasks");
  expect(defaultColumns(900)).toBe("none");
  expect(nextColumns("all")).toBe("tasks");
  expect(nextColumns("tasks")).toBe("none");
  expect(nextColumns("none")).toBe("all");
});
