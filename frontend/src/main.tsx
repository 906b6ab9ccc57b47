import { StrictMode } from "react";
import { createRoot } from "react-dom/client";
import { App } from "./App";
import "./styles/index.css";
import { installLinkGuard } from "./lib/links";
import { installTooltips } from "./lib/tooltip";
import { preloadWhenIdle } from "./lib/lazyScreen";
import { AgentsScreen } from "./screens";
import { installEventFeed } from "./bridge/feed";

installLinkGuard();
installTooltips();
installEventFeed();

createRoot(document.getElementById("root")!).render(
  <StrictMode>
    <App />
  </StrictMode>,
);

// The boot shell in index.html stays over the app until the app has its
// first data (.jc-app[data-ready]) or could not load it, so the swap is
// invisible; a timeout bounds it whatever happens. Then, when idle, the
// Agents page's chunk is fetched, so its first visit paints at once (from
// the last known state inlined into index.html) rather than after a
// download (issue 14).
const boot = document.getElementById("jc-boot");
if (boot) {
  let finished = false;
  const done = () => {
    if (finished) return;
    finished = true;
    observer.disconnect();
    boot.remove();
    preloadWhenIdle([AgentsScreen]);
  };
  const observer = new MutationObserver(() => {
    if (document.querySelector("#root .jc-app[data-ready], #root .jc-banner--error")) done();
  });
  observer.observe(document.getElementById("root")!, { subtree: true, childList: true, attributes: true, attributeFilter: ["data-ready"] });
  setTimeout(done, 8000);
}
