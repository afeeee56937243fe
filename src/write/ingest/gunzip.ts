// The recompression path's input (docs/api.md#writes): a gzip `dataset` part (or a staged copy of one)
// decompressed as it streams and bounded by MAX_CONTENT_BYTES, so a bomb gets 413, not an OOM.
import type { Limits } from "../../config.ts";
import { ApiError } from "../../model/errors.ts";
import { byteLimitStream } from "../../http/byte-limit.ts";
import { largeChunks } from "../../http/large-chunks.ts";

/** Raw content bounded by MAX_CONTENT_BYTES: past it the stream fails with 413. */
export function limitContent(content: ReadableStream<Uint8Array>, limits: Limits): ReadableStream<Uint8Array> {
  const tooLarge = () =>
    new ApiError("payload_too_large", `Dataset content is limited to ${limits.maxContentBytes} bytes uncompressed.`, {
      limit: limits.maxContentBytes,
    });
  return content.pipeThrough(byteLimitStream(limits.maxContentBytes, tooLarge));
}

/** Decompresses a client-gzipped part; corrupt gzip becomes a 400, other errors pass unchanged. */
export function gunzip(compressed: ReadableStream<Uint8Array>, corrupt = "The `dataset` part is not valid gzip."): ReadableStream<Uint8Array> {
  let upstreamError: unknown = null;
  const source = compressed.getReader();
  const tapped = new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        try {
          const { done, value } = await source.read();
          if (done) controller.close();
          else controller.enqueue(value);
        } catch (error: unknown) {
          upstreamError = error;
          throw error;
        }
      },
      // workerd's pipeTo cancels `tapped` for a failed decompressor only once its pending read
      // settles, and when readUpload gives up on corrupt gzip that read fails because the parser
      // errors the unfinished part (MultipartParser.close). Cancelling the now-errored part
      // rejects with that error, and the pipe leaves the rejection unhandled. The same error
      // already reached the pull above and readUpload's own catch, so it is dropped here.
      cancel: (reason) => source.cancel(reason).catch(() => {}),
    },
    { highWaterMark: 0 },
  );
  const decompressor = new DecompressionStream("gzip");
  // The pipe's own failure reaches the reader below; handling it here keeps an abandoned
  // upload from surfacing as an unhandled rejection.
  tapped.pipeTo(decompressor.writable).catch(() => {});
  // The inflater hands out 4 KiB chunks; each costs the scanner and compressor a round trip.
  const inflated = largeChunks(decompressor.readable as ReadableStream<Uint8Array>).getReader();
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        try {
          const { done, value } = await inflated.read();
          if (done) controller.close();
          else controller.enqueue(value);
        } catch (error: unknown) {
          if (upstreamError !== null) throw upstreamError;
          throw new ApiError("invalid_request", corrupt);
        }
      },
      cancel: (reason) => inflated.cancel(reason),
    },
    { highWaterMark: 0 },
  );
}
