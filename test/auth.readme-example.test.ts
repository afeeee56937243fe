// The README's worked signing example, computed by our signer and accepted by our verifier,
// so the documentation cannot drift from the code.
import { describe, expect, it } from "vitest";
import { signRequest } from "../src/auth/sign.ts";
import { verifyRequestSignature } from "../src/auth/verify.ts";

const URL_ = "https://api.example.com/v1/dataset?dry=1";
const body = new TextEncoder().encode("hello");

describe("README worked example", () => {
  it("produces the documented headers and verifies", async () => {
    const headers = await signRequest({ method: "POST", url: URL_, body }, { keyId: "pk_demo", secret: "demo-secret" }, { created: 1763800000, nonce: "n-1" });
    expect(headers.get("content-digest")).toBe("sha-256=:LPJNul+wow4m6DsqxbninhsWHlwfp0JecwQzYpOLmCQ=:");
    expect(headers.get("signature-input")).toBe('sig1=("@method" "@authority" "@path" "@query" "content-digest");created=1763800000;keyid="pk_demo";nonce="n-1"');
    expect(headers.get("signature")).toBe("sig1=:T35v4CAaV2P+DTuvBajOUwPPUqCar1fvtI3l4HFD8Ws=:");
    const result = await verifyRequestSignature(
      { method: "POST", url: URL_, headers },
      { nowSeconds: 1763800000, windowSeconds: 300, requireNonce: true, hasBody: true, lookupKey: async () => new TextEncoder().encode("demo-secret") },
    );
    expect(result.ok).toBe(true);
  });
});
