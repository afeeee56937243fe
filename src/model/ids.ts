// The ids pubset mints (crypto.randomUUID): datasets, versions and uploads are lowercase UUID v4s.
// One pattern, so a path, a page and the cache agree on what an id looks like.

export const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

export function isUuid(value: string): boolean {
  return UUID_PATTERN.test(value);
}
