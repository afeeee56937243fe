// R2 behind a small interface. Key layout: `datasets/{datasetId}/segments/{uuid}` holds one
// segment (raw DEFLATE ended by a sync flush, docs/storage-protocol.md). Objects become reachable only when a
// D1 commit references them; only the scheduled clean-up deletes them (docs/storage-protocol.md).

/** R2 multipart parts must be at least 5 MiB and equal in size but the last. */
export const PART_SIZE = 5 * 1024 * 1024;

export const SEGMENT_PREFIX = "datasets/";

export function newSegmentKey(datasetId: string): string {
  return `${SEGMENT_PREFIX}${datasetId}/segments/${crypto.randomUUID()}`;
}

export function datasetPrefix(datasetId: string): string {
  return `${SEGMENT_PREFIX}${datasetId}/`;
}

/**
 * Streams bytes into one R2 object with memory bounded by two part buffers: small objects are
 * written with a single put, larger ones as a multipart upload of fixed-size parts. The two
 * buffers take turns (one fills while the other uploads) and are reused, never copied: a copy
 * per part was freed only some turns after its upload ended, so even parts written with pauses
 * between them held three parts, not two (docs/performance.md, before run M6).
 */
export class SegmentUpload {
  readonly key: string;
  private readonly bucket: R2Bucket;
  private readonly partSize: number;
  /** The buffer being filled. */
  private part: Uint8Array;
  /** The other buffer: in flight while `inFlight` is pending, then free; null until a second part is needed. */
  private spare: Uint8Array | null = null;
  private filled = 0;
  private total = 0;
  private multipart: R2MultipartUpload | null = null;
  private readonly parts: R2UploadedPart[] = [];
  private partCount = 0;
  private inFlight: Promise<void> | null = null;
  private done = false;

  constructor(bucket: R2Bucket, key: string, partSize = PART_SIZE) {
    this.bucket = bucket;
    this.key = key;
    this.partSize = partSize;
    this.part = new Uint8Array(partSize);
  }

  get bytesWritten(): number {
    return this.total;
  }

  /** Bytes of part buffers this upload holds: one part, two once a second part fills. */
  get bufferBytes(): number {
    return this.part.length + (this.spare?.length ?? 0);
  }

  async write(bytes: Uint8Array): Promise<void> {
    let offset = 0;
    while (offset < bytes.length) {
      const take = Math.min(bytes.length - offset, this.part.length - this.filled);
      this.part.set(bytes.subarray(offset, offset + take), this.filled);
      this.filled += take;
      this.total += take;
      offset += take;
      if (this.filled === this.part.length) await this.flushPart();
    }
  }

  /**
   * Hands the filled buffer to R2 and fills the other one meanwhile: at most one part is in
   * flight, and its buffer is written again only after R2 has answered for it, so ingest does not
   * stop for every R2 round trip and memory stays two parts.
   */
  private async flushPart(): Promise<void> {
    this.multipart ??= await this.bucket.createMultipartUpload(this.key);
    // The other buffer's upload must end before it is filled again.
    await this.inFlight;
    const multipart = this.multipart;
    const sending = this.part;
    const bytes = this.filled === sending.length ? sending : sending.subarray(0, this.filled);
    const index = this.partCount++;
    this.filled = 0;
    this.part = this.spare ?? new Uint8Array(this.partSize);
    this.spare = sending;
    this.inFlight = multipart.uploadPart(index + 1, bytes).then((uploaded) => {
      this.parts[index] = uploaded;
    });
    // A failure surfaces at the next flush, finish or abort, which await it.
    this.inFlight.catch(() => {});
  }

  /** Completes the object; returns its size in bytes. */
  async finish(): Promise<number> {
    if (this.multipart) {
      if (this.filled > 0) await this.flushPart();
      await this.inFlight;
      await this.multipart.complete(this.parts);
    } else {
      await this.bucket.put(this.key, this.part.subarray(0, this.filled));
    }
    this.done = true;
    return this.total;
  }

  /**
   * Abandons an unfinished object: aborts its multipart upload. A completed object stays; its
   * intent row lets the scheduled clean-up, the only deleter, remove it (docs/storage-protocol.md).
   */
  async abort(): Promise<void> {
    try {
      await this.inFlight?.catch(() => {});
      if (!this.done && this.multipart) await this.multipart.abort();
    } catch {
      // An upload left open is aborted by the bucket's lifecycle rule (docs/storage-layout.md#maintenance).
    }
  }
}

export async function putSegment(bucket: R2Bucket, key: string, bytes: Uint8Array): Promise<void> {
  await bucket.put(key, bytes);
}

/** The object's bytes, or only `range` of them (one part of a segment, an R2 range read). */
export async function openSegment(
  bucket: R2Bucket,
  key: string,
  range?: { offset: number; length: number },
): Promise<ReadableStream<Uint8Array>> {
  const object = await bucket.get(key, range ? { range } : undefined);
  if (!object) throw new Error(`segment object missing: ${key}`);
  return object.body;
}

export async function deleteObjects(bucket: R2Bucket, keys: string[]): Promise<void> {
  for (let i = 0; i < keys.length; i += 1000) await bucket.delete(keys.slice(i, i + 1000));
}
