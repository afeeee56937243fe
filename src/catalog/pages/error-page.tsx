// The catalog's error pages: a missing or private dataset (404, worded the same either way),
// an address that is no page (404), a malformed link (400), a server not set up yet (503, with
// the command to run), and our own failures (500), as HTML people can act on.
import { Layout } from "./layout.tsx";

interface Message {
  title: string;
  text: string;
}

const FAILURE: Message = { title: "Something went wrong", text: "The page could not be shown because of an error on our side. Please try again in a moment." };

/** The title of the 503 page of a server that is not set up; its text is the problem's detail. */
export const NOT_SET_UP = "This server is not set up yet";

/** A 404 for an address that is not a dataset page at all. */
export const PAGE_NOT_FOUND: Message = { title: "Page not found", text: "Nothing lives at this address. The list of public datasets is a good place to start." };

const MESSAGES: Record<number, Message> = {
  400: { title: "This link is not valid", text: "Part of the address is malformed. Start again from the list of datasets." },
  404: { title: "Dataset not found", text: "There is no public dataset at this address. It may have been removed or made private." },
};

/** Text with `back-quoted` commands shown as code, so they read as something to type. */
function withCode(text: string) {
  return text.split("`").map((part, i) => (i % 2 === 1 ? <code>{part}</code> : part));
}

export function ErrorPage({ status, message = MESSAGES[status] ?? FAILURE }: { status: number; message?: Message }) {
  return (
    <Layout title={message.title}>
      <h1>{message.title}</h1>
      <p>{withCode(message.text)}</p>
      <p>
        <a href="/">Browse public datasets</a>
      </p>
    </Layout>
  );
}
