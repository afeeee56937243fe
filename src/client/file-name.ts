// The name a download is saved under when the caller names none. It comes from a path the
// server chose, so it is cut down to a safe base name: percent-decoded first (so `..%2F` is
// seen as a directory step), then only the part after the last slash or backslash, with the
// characters docs/api.md#writes allows in stored names, no leading dots, and a fallback when nothing is left.

const MAX_LENGTH = 200;

export function safeFileName(serverName: string, fallback: string): string {
  let decoded = serverName;
  try {
    decoded = decodeURIComponent(serverName);
  } catch {
    // Not valid percent-encoding: use the text as it is.
  }
  const base = decoded.split(/[/\\]/).pop() ?? "";
  const cleaned = base.replace(/[^A-Za-z0-9._-]/g, "_").replace(/^\.+/, "");
  const short = cleaned.length > MAX_LENGTH ? cleaned.slice(cleaned.length - MAX_LENGTH) : cleaned;
  return short === "" || /^[._-]*$/.test(short) ? fallback : short;
}
