import { hostDown } from "./hostUnreachable";

test("the cause in words on the banner, the raw error apart", () => {
  expect(hostDown("host unreachable since 15:04:05: connection lost\nremote: relay r1: EOF")).toEqual({
    text: "since 15:04:05: connection lost",
    detail: "remote: relay r1: EOF",
  });
  expect(hostDown("host unreachable since 15:04:05")).toEqual({ text: "since 15:04:05", detail: "" });
  expect(hostDown("Stopped by user")).toBeNull();
  expect(hostDown(undefined)).toBeNull();
});
