// What an Idempotency-Key request holds while its write runs (docs/api.md#idempotent-writes): the key
// it reserved, scoped to the signing key, and the token that proves the reservation is its own.
// The write stores its answer with its commit under this hold.

export interface IdempotencyScope {
  keyId: string;
  idempotencyKey: string;
}

export interface IdempotencyHold {
  scope: IdempotencyScope;
  token: string;
  expiresSeconds: number;
}
