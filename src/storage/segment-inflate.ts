// Reads one stored segment back as its uncompressed bytes, without touching any other segment
// (docs/storage-protocol.md). A segment is raw DEFLATE ended by a sync flush with no final block; followed by
// the empty final block `03 00` (RFC 1951 §3.2.3, §3.2.6) it is a complete DEFLATE stream.

const EMPTY_FINAL_BLOCK = Uint8Array.of(0x03, 0x00);

/** The segment's content, inflated by the platform's DecompressionStream as it streams. */
export function inflateSegment(compressed: ReadableStream<Uint8Array>): ReadableStream<Uint8Array> {
  const closed = new TransformStream<Uint8Array, Uint8Array>({
    flush(controller) {
      controller.enqueue(EMPTY_FINAL_BLOCK.slice());
    },
  });
  return compressed.pipeThrough(closed).pipeThrough(new DecompressionStream("deflate-raw"));
}
