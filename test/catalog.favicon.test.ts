// Browsers ask for /favicon.ico on every page of an origin, JSON and CSV answers included; a
// 404 there is an error in every reader's console (and once failed a browser test of ours).
import { describe, expect, it } from "vitest";
import { send } from "./helpers/http.ts";

describe("/favicon.ico", () => {
  it("is a small script-free SVG, public and cached for a day", async () => {
    const res = await send("GET", "/favicon.ico");
    expect(res.status).toBe(200);
    expect(res.headers.get("Content-Type")).toBe("image/svg+xml");
    expect(res.headers.get("Cache-Control")).toBe("public, max-age=86400");
    expect(res.headers.get("Content-Security-Policy")).toBe("default-src 'none'");
    const svg = await res.text();
    expect(svg).toMatch(/^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg"/);
    expect(svg).not.toMatch(/script|on[a-z]+=/i);
    expect(svg.length).toBeLessThan(512);
  });

  it("answers HEAD too, with no body", async () => {
    const res = await send("HEAD", "/favicon.ico");
    expect(res.status).toBe(200);
    expect(res.headers.get("Content-Type")).toBe("image/svg+xml");
    expect(await res.text()).toBe("");
  });
});
