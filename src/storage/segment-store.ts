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
 * Streams bytes into one R2 object with memory bounded by one part buffer and what arrives while
 * it uploads: small objects are written with a single put, larger ones as a multipart upload of
 * fixed-size parts. The buffer is reused, never copied whole: a copy per part was freed only some
 * turns after its upload ended, so a twin build held several. While a part is in flight,
 * the bytes written meanwhile are kept as they come (copied, at most a part's worth; a write past
 * that waits for R2), and go into the buffer first once R2 has answered: a second part buffer,
 * filled while the first uploaded, held 5 MiB more through a whole twin build, though a part's
 * round trip brings far less (docs/performance.md, "What the build holds").
 */
export class SegmentUpload {
  readonly key: string;
  private readonly bucket: R2Bucket;
  private readonly partSize: number;
  /** The part buffer: being filled, or with R2 while `sending`. */
  private readonly part: Uint8Array;
  private filled = 0;
  /** Bytes written while the part was in flight, in order, to go into it before anything else. */
  private queued: Uint8Array[] = [];
  private queuedBytes = 0;
  private sending = false;
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

  /** Bytes this upload holds: its part buffer, and what was written while it was in flight. */
  get bufferBytes(): number {
    return this.part.length + this.queuedBytes;
  }

  async write(bytes: Uint8Array): Promise<void> {
    let offset = 0;
    while (offset < bytes.length) {
      if (this.sending) {
        if (this.queuedBytes === this.partSize) {
          await this.inFlight;
          continue;
        }
        const take = Math.min(bytes.length - offset, this.partSize - this.queuedBytes);
        this.queued.push(bytes.slice(offset, offset + take));
        this.queuedBytes += take;
        this.total += take;
        offset += take;
        continue;
      }
      if (this.queuedBytes > 0 && (await this.takeQueued())) continue;
      const take = Math.min(bytes.length - offset, this.part.length - this.filled);
      this.part.set(bytes.subarray(offset, offset + take), this.filled);
      this.filled += take;
      this.total += take;
      offset += take;
      if (this.filled === this.part.length) await this.flushPart();
    }
  }

  /**
   * Moves what was queued into the part buffer, now back from R2; sends it at once when that
   * fills it. Returns whether it did send (the queue then holds nothing, the buffer is in flight).
   */
  private async takeQueued(): Promise<boolean> {
    for (const bytes of this.queued) {
      this.part.set(bytes, this.filled);
      this.filled += bytes.length;
    }
    this.queued = [];
    this.queuedBytes = 0;
    if (this.filled < this.part.length) return false;
    await this.flushPart();
    return true;
  }

  /**
   * Hands the filled buffer to R2. Writes meanwhile are queued (write), so ingest does not stop
   * for every R2 round trip, and the buffer is written again only after R2 has answered for it.
   */
  private async flushPart(): Promise<void> {
    this.multipart ??= await this.bucket.createMultipartUpload(this.key);
    await this.inFlight;
    const multipart = this.multipart;
    const bytes = this.filled === this.part.length ? this.part : this.part.subarray(0, this.filled);
    const index = this.partCount++;
    this.filled = 0;
    this.sending = true;
    this.inFlight = multipart.uploadPart(index + 1, bytes).then((uploaded) => {
      this.parts[index] = uploaded;
      this.sending = false;
    });
    // A failure surfaces at the next write that waits for it, finish or abort, which await it.
    this.inFlight.catch(() => {});
  }

  /** Completes the object; returns its size in bytes. */
  async finish(): Promise<number> {
    if (this.multipart) {
      await this.inFlight;
      if (this.queuedBytes > 0 && (await this.takeQueued())) await this.inFlight;
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
