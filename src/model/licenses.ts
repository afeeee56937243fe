// The licences a dataset's `properties.license` names: an http(s) URL, or an SPDX licence id
// (https://spdx.org/licenses/) from this list — the open-data licences and the common software
// ones, not SPDX's full list of some 700, so a typo is caught rather than published. An id
// missing here can still be given as its URL.

export const SPDX_LICENSES = [
  "CC0-1.0",
  "CC-BY-4.0",
  "CC-BY-SA-4.0",
  "CC-BY-NC-4.0",
  "CC-BY-ND-4.0",
  "CC-BY-NC-SA-4.0",
  "CC-BY-NC-ND-4.0",
  "CC-BY-3.0",
  "CC-BY-SA-3.0",
  "CC-BY-NC-SA-3.0",
  "CC-BY-2.5",
  "CC-PDDC",
  "PDDL-1.0",
  "ODC-By-1.0",
  "ODbL-1.0",
  "CDLA-Permissive-1.0",
  "CDLA-Permissive-2.0",
  "CDLA-Sharing-1.0",
  "O-UDA-1.0",
  "C-UDA-1.0",
  "OGL-UK-2.0",
  "OGL-UK-3.0",
  "OGL-Canada-2.0",
  "DL-DE-BY-2.0",
  "DL-DE-ZERO-2.0",
  "etalab-2.0",
  "NLOD-1.0",
  "NLOD-2.0",
  "OPUBL-1.0",
  "GFDL-1.3-only",
  "MIT",
  "Apache-2.0",
  "BSD-2-Clause",
  "BSD-3-Clause",
  "ISC",
  "0BSD",
  "Zlib",
  "Unlicense",
  "MPL-2.0",
  "EUPL-1.2",
  "GPL-2.0-only",
  "GPL-2.0-or-later",
  "GPL-3.0-only",
  "GPL-3.0-or-later",
  "LGPL-2.1-only",
  "LGPL-2.1-or-later",
  "LGPL-3.0-only",
  "LGPL-3.0-or-later",
  "AGPL-3.0-only",
  "AGPL-3.0-or-later",
] as const;

export type SpdxLicense = (typeof SPDX_LICENSES)[number];

const BY_LOWER = new Map<string, SpdxLicense>(SPDX_LICENSES.map((id) => [id.toLowerCase(), id]));

/** The listed id `given` names, in SPDX's spelling (ids compare case-insensitively), or undefined. */
export function spdxLicense(given: string): SpdxLicense | undefined {
  return BY_LOWER.get(given.trim().toLowerCase());
}

/** SPDX's page for a licence id. */
export function spdxUrl(id: string): string {
  return `https://spdx.org/licenses/${id}.html`;
}

/** Up to three listed ids that look like what was typed: same start, or containing it. */
export function nearLicenses(given: string): SpdxLicense[] {
  const typed = given.trim().toLowerCase();
  if (typed === "") return [];
  const stem = typed.replace(/[-.]?\d[\d.]*$/, "");
  const starts = SPDX_LICENSES.filter((id) => id.toLowerCase().startsWith(typed));
  const close = starts.length > 0 ? starts : SPDX_LICENSES.filter((id) => id.toLowerCase().startsWith(stem) || id.toLowerCase().includes(typed));
  return close.slice(0, 3);
}
