// Pattern formats of declared dates and datetimes (docs/column-types.md), held to what Python's strptime (and
// so Frictionless) answers for the same pattern and text: the expected values below are
// Python 3's `datetime.strptime(text, format)`, written as ISO 8601.
import { describe, expect, it } from "vitest";
import { castCell } from "../src/schema/cast.ts";
import { compilePattern, isoDate, isoDatetime, readPattern } from "../src/schema/strftime.ts";

const datetime = (format: string, text: string) => {
  const moment = readPattern(format, text);
  return moment === null ? null : isoDatetime(moment);
};
const date = (format: string, text: string) => {
  const moment = readPattern(format, text);
  return moment === null ? null : isoDate(moment);
};

describe("readPattern", () => {
  it("reads month names, numbers and two-digit years as strptime does", () => {
    expect(date("%b %d %Y", "Jan 1 2000")).toBe("2000-01-01");
    expect(date("%b %d %Y", "jan 01 2000")).toBe("2000-01-01");
    expect(date("%B %d, %Y", "September 5, 2001")).toBe("2001-09-05");
    expect(date("%d/%m/%Y", "31/12/1999")).toBe("1999-12-31");
    expect(date("%d/%m/%Y", "1/2/2000")).toBe("2000-02-01");
    expect(date("%d.%m.%y", "01.02.68")).toBe("2068-02-01");
    expect(date("%d.%m.%y", "01.02.69")).toBe("1969-02-01");
    expect(date("%a, %d %b %Y", "Mon, 01 Jan 2024")).toBe("2024-01-01");
    expect(date("%Y%m%d", "20240229")).toBe("2024-02-29");
    expect(date("%m/%d", "12/25")).toBe("1900-12-25");
  });

  it("reads times: 12-hour clocks, fractions and zones", () => {
    expect(datetime("%Y/%m/%d %H:%M:%S", "2015/01/01 01:00:00")).toBe("2015-01-01T01:00:00");
    expect(datetime("%I:%M %p", "12:30 AM")).toBe("1900-01-01T00:30:00");
    expect(datetime("%I:%M %p", "12:30 pm")).toBe("1900-01-01T12:30:00");
    expect(datetime("%I:%M %p", "1:05 PM")).toBe("1900-01-01T13:05:00");
    expect(datetime("%Y-%m-%d %H:%M:%S.%f%z", "2020-01-01 10:00:00.5+01:00")).toBe("2020-01-01T10:00:00.5+01:00");
    expect(datetime("%Y-%m-%d %H:%M%z", "2020-01-01 10:00-0530")).toBe("2020-01-01T10:00:00-05:30");
    expect(datetime("%Y-%m-%d %H:%M%z", "2020-01-01 10:00Z")).toBe("2020-01-01T10:00:00Z");
    expect(datetime("%Y-%m-%d %H:%M%z", "2020-01-01 10:00+0000")).toBe("2020-01-01T10:00:00Z");
    expect(date("%d/%m/%Y %H:%M", "02/03/2021 23:59")).toBe("2021-03-02");
  });

  it("matches whitespace as runs, %% as a percent sign, and other characters as themselves", () => {
    expect(date("%b  %d %Y", "Jan 1\t2000")).toBe("2000-01-01");
    expect(date("%b %d %Y", "Jan1 2000")).toBeNull();
    expect(date("100%% %Y", "100% 2000")).toBe("2000-01-01");
    expect(date("(%Y)", "(2000)")).toBe("2000-01-01");
    expect(date("%Y.%m", "2000x01")).toBeNull();
  });

  it("refuses what strptime refuses: days that do not exist, text left over, leap seconds, a lower-case z", () => {
    expect(date("%b %d %Y", "Feb 30 2000")).toBeNull();
    expect(date("%b %d %Y", "Feb 29 1900")).toBeNull();
    expect(date("%Y", "20001")).toBeNull();
    expect(date("%Y", "200")).toBeNull();
    expect(date("%Y", "0000")).toBeNull();
    expect(datetime("%H:%M:%S", "10:00:60")).toBeNull();
    expect(datetime("%H:%M%z", "10:00z")).toBeNull();
    expect(datetime("%H:%M%z", "10:00+2400")).toBeNull();
    expect(date("%d/%m/%Y", "13/13/2000")).toBeNull();
  });
});

describe("compilePattern", () => {
  it.each([["%Q"], ["%e"], ["%j"], ["%Y %Y"], ["%Y%"], ["%Z"]])("refuses %s", (format) => {
    expect(compilePattern(format).ok).toBe(false);
  });
});

describe("castCell with a pattern format", () => {
  it("answers dates and datetimes in ISO 8601, and names the pattern a cell broke", () => {
    const missing = new Set([""]);
    expect(castCell({ name: "d", type: "date", format: "%b %d %Y" }, "Jan 1 2000", missing)).toEqual({ ok: true, value: "2000-01-01" });
    expect(castCell({ name: "t", type: "datetime", format: "%Y/%m/%d %H:%M:%S" }, "2015/01/01 01:00:00", missing)).toEqual({ ok: true, value: "2015-01-01T01:00:00" });
    expect(castCell({ name: "d", type: "date", format: "%b %d %Y" }, "2000-01-01", missing)).toEqual({ ok: false, expected: "date (%b %d %Y)" });
    expect(castCell({ name: "d", type: "date", format: "any" }, "2000-01-01", missing)).toEqual({ ok: true, value: "2000-01-01" });
  });

  it("a declared time: hh:mm:ss by default, a pattern's time in ISO 8601 otherwise", () => {
    const missing = new Set([""]);
    const time = (text: string, format?: string) => castCell({ name: "t", type: "time", ...(format ? { format } : {}) }, text, missing);
    expect(time("10:30:00")).toEqual({ ok: true, value: "10:30:00" });
    expect(time("23:59:59.5+01:00")).toEqual({ ok: true, value: "23:59:59.5+01:00" });
    expect(time("24:00:00")).toEqual({ ok: false, expected: "time" });
    expect(time("10:30")).toEqual({ ok: false, expected: "time" });
    expect(time("1:05 PM", "%I:%M %p")).toEqual({ ok: true, value: "13:05:00" });
    expect(time("10h30 Z", "%Hh%M %z")).toEqual({ ok: true, value: "10:30:00Z" });
    expect(time("10:30:00", "%I:%M %p")).toEqual({ ok: false, expected: "time (%I:%M %p)" });
  });
});
