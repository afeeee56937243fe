// The catalog's error pages: a missing or private dataset (404, worded the same either way),
// an address that is no page (404), a malformed link (400), and our own failures (500), as
// HTML people can act on.
import { Layout } from "./layout.tsx";

interface Message {
  title: string;
  text: string;
}

const FAILURE: Message = { title: "Something went wrong", text: "The page could not be shown because of an error on our side. Please try again in a moment." };

/** A 404 for an address that is not a dataset page at all. */
export const PAGE_NOT_FOUND: Message = { title: "Page not found", text: "Nothing lives at this address. The list of public datasets is a good place to start." };

const MESSAGES: Record<number, Message> = {
  400: { title: "This link is not valid", text: "Part of the address is malformed. Start again from the list of datasets." },
  404: { title: "Dataset not found", text: "There is no public dataset at this address. It may have been removed or made private." },
};

export function ErrorPage({ status, message = MESSAGES[status] ?? FAILURE }: { status: number; message?: Message }) {
  return (
    <Layout title={message.title}>
      <h1>{message.title}</h1>
      <p>{message.text}</p>
      <p>
        <a href="/">Browse public datasets</a>
      </p>
    </Layout>
  );
}
