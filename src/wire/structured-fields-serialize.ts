// RFC 8941 §4.1 serialisation, which RFC 9421 §2.3 uses to rebuild `@signature-params`
// canonically and the signer uses to write its fields. Values that cannot be serialised are
// programming errors (parsing never produces them), so these throw TypeError.

import { toBase64 } from "./bytes.ts";
import type { BareItem, Dictionary, InnerList, Item, Parameters } from "./structured-fields.ts";

const KEY = /^[a-z*][a-z0-9_\-.*]*$/;
const TOKEN = /^[A-Za-z*][!#$%&'*+\-.^_`|~0-9A-Za-z:/]*$/;
const MAX_INTEGER = 999_999_999_999_999;

/** RFC 8941 §4.1.2, the form RFC 9421 §2.3 signs as `@signature-params`. */
export function serializeInnerList(list: InnerList): string {
  return `(${list.items.map(serializeItem).join(" ")})${serializeParameters(list.params)}`;
}

/** RFC 8941 §4.1.3 */
export function serializeItem(item: Item): string {
  return serializeBareItem(item.value) + serializeParameters(item.params);
}

/** RFC 8941 §4.1.1.2 */
export function serializeParameters(params: Parameters): string {
  let out = "";
  for (const [key, value] of params) {
    out += ";" + serializeKey(key);
    if (!(value.type === "boolean" && value.value)) out += "=" + serializeBareItem(value);
  }
  return out;
}

/** RFC 8941 §4.1.2 */
export function serializeDictionary(dictionary: Dictionary): string {
  const members: string[] = [];
  for (const [key, member] of dictionary) {
    if (member.kind === "inner-list") members.push(`${serializeKey(key)}=${serializeInnerList(member)}`);
    else if (member.value.type === "boolean" && member.value.value) {
      members.push(serializeKey(key) + serializeParameters(member.params));
    } else members.push(`${serializeKey(key)}=${serializeItem(member)}`);
  }
  return members.join(", ");
}

/** RFC 8941 §4.1.3.1 */
export function serializeBareItem(item: BareItem): string {
  switch (item.type) {
    case "integer":
      if (!Number.isInteger(item.value) || Math.abs(item.value) > MAX_INTEGER) {
        throw new TypeError(`not a structured-field integer: ${item.value}`);
      }
      return String(item.value);
    case "decimal":
      return serializeDecimal(item.value);
    case "string":
      if (/[^\x20-\x7e]/.test(item.value)) throw new TypeError("string has a non-printable character");
      return `"${item.value.replace(/[\\"]/g, (c) => "\\" + c)}"`;
    case "token":
      if (!TOKEN.test(item.value)) throw new TypeError(`not a token: ${item.value}`);
      return item.value;
    case "bytes":
      return `:${toBase64(item.value)}:`;
    case "boolean":
      return item.value ? "?1" : "?0";
  }
}

function serializeDecimal(value: number): string {
  const thousandths = Math.round(Math.abs(value) * 1000);
  const whole = Math.floor(thousandths / 1000);
  if (!Number.isFinite(value) || whole > 999_999_999_999) throw new TypeError(`not a decimal: ${value}`);
  const fraction = String(thousandths % 1000).padStart(3, "0").replace(/0{1,2}$/, "");
  return `${value < 0 && thousandths > 0 ? "-" : ""}${whole}.${fraction}`;
}

function serializeKey(key: string): string {
  if (!KEY.test(key)) throw new TypeError(`not a structured-field key: ${key}`);
  return key;
}
