// A dataset's metadata as a description list: what it is, who to ask, who publishes it,
// and when it was made and last changed.
import type { KnownProperties } from "../format.ts";
import { homeHref } from "../links.ts";
import { KeyWords, Time } from "./inline.tsx";
import type { DatasetRow, VersionRow } from "../../model/dataset.ts";

export interface DatasetMetaProps {
  dataset: DatasetRow;
  latest: VersionRow;
  props: KnownProperties;
}

export function DatasetMeta({ dataset, latest, props }: DatasetMetaProps) {
  const none = <span class="muted">none given</span>;
  return (
    <dl class="meta">
      <dt>Key words</dt>
      <dd>{props.keyWords.length > 0 ? <KeyWords words={props.keyWords} label="Key words" /> : none}</dd>
      <dt>Contact</dt>
      <dd>{props.contactName !== "" ? <bdi>{props.contactName}</bdi> : none}</dd>
      <dt>Team</dt>
      <dd>
        <a href={homeHref({ team: dataset.teamId })}>{dataset.teamId}</a>
      </dd>
      <dt>Owner</dt>
      <dd>
        <a href={homeHref({ owner: dataset.ownerId })}>{dataset.ownerId}</a>
      </dd>
      <dt>Created</dt>
      <dd>
        <Time iso={dataset.created} />
      </dd>
      <dt>Last update</dt>
      <dd>
        <Time iso={latest.created} />
      </dd>
      <dt>Dataset id</dt>
      <dd>
        <code>{dataset.id}</code>
      </dd>
    </dl>
  );
}
