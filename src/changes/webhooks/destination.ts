// Whether a delivery may go to a webhook's URL now (docs/changes.md "Webhook safety"): the URL as
// written (url.ts), then every address its host name has in DNS at this moment, each of which must
// be public (special-addresses.ts). A refusal or a failed lookup is a failed attempt, retried like
// any other: DNS may change back.
import { formatIpAddress } from "./ip-address.ts";
import type { Resolver } from "./resolver.ts";
import { classifyAddress } from "./special-addresses.ts";
import { checkWebhookUrl, URL_REFUSALS } from "./url.ts";

export type Destination = { ok: true; url: string } | { ok: false; error: string };

export async function checkDestination(url: string, allowLocalhost: boolean, resolver: Resolver): Promise<Destination> {
  const check = checkWebhookUrl(url, allowLocalhost);
  if (!check.ok) return { ok: false, error: `url refused: ${URL_REFUSALS[check.reason]}` };
  // The local-development allowance names an address: there is no name to look up.
  if (check.name === null) return { ok: true, url: check.url };
  const resolution = await resolver.resolve(check.name);
  if (!resolution.ok) return { ok: false, error: `url not resolved: ${check.name}: ${resolution.error}`.slice(0, 300) };
  for (const address of resolution.addresses) {
    const judged = classifyAddress(address);
    if (!judged.public) return { ok: false, error: `url refused: ${check.name} resolves to ${formatIpAddress(address)}, in ${judged.range}, ${judged.purpose}`.slice(0, 300) };
  }
  return { ok: true, url: check.url };
}
