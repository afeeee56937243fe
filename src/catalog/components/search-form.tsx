// The home page's search: full-text words and a team filter, submitted as a plain GET form
// so it works without JavaScript. An owner filter, set by following an owner link, rides
// along as a hidden field.
import type { HomeQuery } from "../home-data.ts";

export interface SearchFormProps {
  query: HomeQuery;
  teams: string[];
  maxLength: number;
}

export function SearchForm({ query, teams, maxLength }: SearchFormProps) {
  const options = query.team !== "" && !teams.includes(query.team) ? [query.team, ...teams] : teams;
  return (
    <form class="search" method="get" action="/" role="search">
      <div class="q">
        <label for="q">Search datasets</label>
        <input id="q" name="q" type="search" value={query.q} maxlength={maxLength} aria-describedby="q-hint" />
      </div>
      <div>
        <label for="team">Team</label>
        <select id="team" name="team">
          <option value="" selected={query.team === ""}>
            All teams
          </option>
          {options.map((team) => (
            <option value={team} selected={team === query.team}>
              {team}
            </option>
          ))}
        </select>
      </div>
      {query.owner !== "" ? <input type="hidden" name="owner" value={query.owner} /> : null}
      <div>
        <button type="submit">Search</button>
      </div>
      <p id="q-hint" class="hint">
        Every word must appear in the name, description, key words or contact; the last may be the start of a word.
      </p>
    </form>
  );
}
