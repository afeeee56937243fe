// Builds the Hono app: middleware order (CORS → signature), route mounting, and the one
// error handler that turns every failure into problem details (docs/api.md#errors, docs/edge-and-caching.md).
import { OpenAPIHono } from "@hono/zod-openapi";
import { cors } from "hono/cors";
import { methodNotAllowed } from "hono/method-not-allowed";
import { HTTPException } from "hono/http-exception";
import type { AppEnv } from "./app-env.ts";
import { faviconRoutes, catalogFeedRoutes, catalogNotFound, catalogRoutes } from "./catalog/routes.tsx";
import { ApiError, problemResponse } from "./model/errors.ts";
import { logSetupProblem, setupProblem } from "./http/setup-problems.ts";
import { validationHook } from "./http/validation-hook.ts";
import { RouteTable } from "./edge/route-policy.ts";
import { browserSafetyMiddleware, withNosniff } from "./edge/browser-safety.ts";
import { cachePolicyMiddleware } from "./edge/cache-policy.ts";
import { d1SessionMiddleware } from "./edge/d1-session.ts";
import { httpCacheMiddleware } from "./edge/http-cache.ts";
import { idempotencyMiddleware } from "./write/idempotency.ts";
import { rateLimitFieldsMiddleware, rateLimitMiddleware } from "./edge/rate-limit.ts";
import { signatureMiddleware } from "./auth/signature-middleware.ts";
import { datasetRoutes } from "./dataset-routes.ts";
import { uploadOptionsMiddleware, uploadRoutes } from "./uploads/routes.ts";
import { registerDocs } from "./openapi/routes.ts";
import { registerChanges } from "./changes/feed-route.ts";
import { registerWebhooks } from "./changes/webhooks/routes.ts";

const CORS = cors({
  origin: "*",
  allowMethods: ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"],
  allowHeaders: [
    "Signature",
    "Signature-Input",
    "Content-Digest",
    "Content-Type",
    "Idempotency-Key",
    "If-Match",
    "If-None-Match",
    "X-D1-Bookmark",
    "Upload-Complete",
    "Upload-Offset",
    "Upload-Length",
  ],
  exposeHeaders: [
    "ETag",
    "Link",
    "Location",
    "Retry-After",
    "Idempotent-Replayed",
    "X-D1-Bookmark",
    "RateLimit",
    "RateLimit-Policy",
    "Upload-Offset",
    "Upload-Complete",
    "Upload-Limit",
    "Upload-Length",
  ],
  maxAge: 86400,
});

export function toProblem(error: unknown): Response {
  if (error instanceof ApiError) return problemResponse(error);
  if (error instanceof HTTPException) {
    const code = error.status === 413 ? "payload_too_large" : error.status === 404 ? "not_found" : "invalid_request";
    return problemResponse(new ApiError(code, error.message || "Request rejected."));
  }
  const setup = setupProblem(error);
  if (setup !== null) {
    logSetupProblem(setup);
    return problemResponse(setup);
  }
  console.error("unhandled error", error);
  return problemResponse(new ApiError("internal_error", "Something went wrong on our side; the request changed nothing."));
}

export function createApp(): OpenAPIHono<AppEnv> {
  const app = new OpenAPIHono<AppEnv>({ defaultHook: validationHook });
  // Every route's declared policy (src/edge/route-policy.ts), loaded once all routes are mounted.
  const routes = new RouteTable();
  app.use("*", browserSafetyMiddleware);
  app.use("*", uploadOptionsMiddleware(routes));
  app.use("*", CORS);
  app.use("*", d1SessionMiddleware);
  app.use("*", cachePolicyMiddleware(routes));
  app.use("*", rateLimitFieldsMiddleware);
  // A path that exists with other methods: 405 with Allow, as problem details (docs/api.md#errors).
  app.use(
    "*",
    methodNotAllowed({
      app,
      onMethodNotAllowed: (_c, methods) => {
        // OPTIONS is answered everywhere, by the CORS middleware.
        const allow = [...methods, "OPTIONS"].join(", ");
        throw new ApiError("method_not_allowed", `Allowed here: ${allow}.`, {}, { Allow: allow });
      },
    }),
  );
  app.use("/v1/*", signatureMiddleware);
  app.use("*", rateLimitMiddleware);
  app.use("/v1/*", idempotencyMiddleware);
  app.use("/v1/*", httpCacheMiddleware(routes));
  app.route("/v1/dataset", datasetRoutes());
  const uploads = new OpenAPIHono<AppEnv>({ defaultHook: validationHook });
  uploadRoutes(uploads);
  app.route("/v1/uploads", uploads);
  const changes = new OpenAPIHono<AppEnv>({ defaultHook: validationHook });
  registerChanges(changes);
  app.route("/v1/changes", changes);
  const webhooks = new OpenAPIHono<AppEnv>({ defaultHook: validationHook });
  registerWebhooks(webhooks);
  app.route("/v1/webhooks", webhooks);
  registerDocs(app, routes);
  app.route("/", catalogFeedRoutes());
  app.route("/", faviconRoutes());
  app.route("/", catalogRoutes());
  routes.load(app.routes);
  app.notFound(
    (c) => catalogNotFound(c.req.raw) ?? problemResponse(new ApiError("not_found", `No route for ${c.req.method} ${new URL(c.req.url).pathname}.`)),
  );
  app.onError((error, c) => {
    const response = toProblem(error);
    response.headers.set("Access-Control-Allow-Origin", "*");
    return withNosniff(c.newResponse(response.body, response));
  });
  return app;
}
