// Live updates: every 2 s the page is fetched again and each region marked data-live is replaced, so the
// console follows what chat cards follow (also changes made by another process). Forms sit outside those
// regions, so typing is never disturbed.
(() => {
  const here = document.body.dataset.path;
  if (here && here !== location.pathname) history.replaceState(null, "", here);
  const regions = () => document.querySelectorAll("[data-live]");
  if (regions().length === 0) return;
  const refresh = async () => {
    if (document.hidden) return;
    const response = await fetch(location.href, { headers: { "x-console-live": "1" }, credentials: "same-origin" });
    if (!response.ok || response.redirected) return;
    const next = new DOMParser().parseFromString(await response.text(), "text/html");
    for (const region of regions()) {
      const fresh = next.querySelector(`[data-live="${region.dataset.live}"]`);
      // A region being pointed at or typed in stays as it is until the person moves on.
      const busy = region.contains(document.activeElement) || region.matches(":hover");
      if (fresh && fresh.innerHTML !== region.innerHTML && !busy) {
        region.innerHTML = fresh.innerHTML;
      }
    }
  };
  setInterval(() => refresh().catch(() => {}), 2000);
  const chat = document.querySelector(".chat");
  if (chat) chat.scrollTop = chat.scrollHeight;
})();
