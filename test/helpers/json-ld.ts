// Reads JSON-LD documents the way a harvester does, with jsonld.js, but offline: the document
// loader refuses every URL except the schema.org context kept in test/fixtures. Documents are
// flattened into nodes keyed by IRI, so tests assert the graph (types, IRIs, values), not text.
import jsonld from "jsonld/dist/jsonld.esm.js";
import { SCHEMA_ORG_CONTEXT_DOCUMENT } from "../fixtures/schema-org-context.ts";

export const DCAT = "http://www.w3.org/ns/dcat#";
export const DCT = "http://purl.org/dc/terms/";
export const HYDRA = "http://www.w3.org/ns/hydra/core#";
export const FOAF = "http://xmlns.com/foaf/0.1/";
export const VCARD = "http://www.w3.org/2006/vcard/ns#";
export const XSD = "http://www.w3.org/2001/XMLSchema#";
export const CR = "http://mlcommons.org/croissant/";
/** Croissant's @vocab. */
export const SC = "https://schema.org/";
/** What `"@context": "https://schema.org"` expands to. */
export const SCHEMA = "http://schema.org/";
export const RDF_TYPE = "@type";

const LOCAL: Record<string, unknown> = {
  "https://schema.org": SCHEMA_ORG_CONTEXT_DOCUMENT,
  "https://schema.org/": SCHEMA_ORG_CONTEXT_DOCUMENT,
};

/** The one network a test allows: none. */
export const requestedUrls: string[] = [];

async function offlineLoader(url: string) {
  requestedUrls.push(url);
  const document = LOCAL[url];
  if (document === undefined) throw new Error(`the test's document loader refuses the network: ${url}`);
  return { contextUrl: null, documentUrl: url, document };
}

export type Node = Record<string, unknown> & { "@id": string };

export interface Graph {
  nodes: Map<string, Node>;
  /** Nodes with this type IRI. */
  ofType(type: string): Node[];
  node(id: string): Node;
}

/** Expands (safe mode: anything that would be silently dropped throws) and flattens `document`. */
export async function readJsonLd(document: unknown, base?: string): Promise<Graph> {
  const options = { documentLoader: offlineLoader, base, safe: true };
  await jsonld.expand(document, options);
  const flat = await jsonld.flatten(document, null, options);
  const nodes = new Map<string, Node>();
  for (const node of flat) nodes.set(String(node["@id"]), node as Node);
  return {
    nodes,
    ofType: (type) => [...nodes.values()].filter((n) => ((n["@type"] as string[] | undefined) ?? []).includes(type)),
    node: (id) => {
      const found = nodes.get(id);
      if (!found) throw new Error(`no node ${id} in the graph: ${[...nodes.keys()].join(", ")}`);
      return found;
    },
  };
}

type Entry = { "@id"?: string; "@value"?: unknown; "@type"?: string };

/** The objects of `node`'s `property`: literal values as given, IRIs and blank nodes as their ids. */
export function objects(node: Node, property: string): unknown[] {
  return ((node[property] as Entry[] | undefined) ?? []).map((o) => (o["@id"] !== undefined ? o["@id"] : o["@value"]));
}

/** The one object of `property`; throws when there is not exactly one. */
export function one(node: Node, property: string): unknown {
  const all = objects(node, property);
  if (all.length !== 1) throw new Error(`${node["@id"]} has ${all.length} values of ${property}`);
  return all[0];
}

/** The datatype IRI of the one literal of `property`. */
export function datatype(node: Node, property: string): string | undefined {
  const all = (node[property] as Entry[] | undefined) ?? [];
  return all.length === 1 ? all[0]?.["@type"] : undefined;
}
