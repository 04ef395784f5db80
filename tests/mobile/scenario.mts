// A phone app's journey through a client generated from the schema (openapi-typescript types,
// openapi-fetch calls), against a live server: log-in, the offline bundle, offline reviews in a
// batch with their own times, notes with a stale ETag, the exam, its certificate, the private
// calendar address. No cast anywhere (tests/mobile/no_casts.mjs checks the syntax tree); every
// answer is validated against the schema at run time (validate.mts).
//
// Run by tests/mobile/test_typescript_client.py with LERNPFAD_URL, LERNPFAD_SCHEMA,
// LERNPFAD_MODULE, LERNPFAD_USERNAME and LERNPFAD_PASSWORD set.

import createClient from "openapi-fetch";
import { randomUUID } from "node:crypto";
import type { components, paths } from "./schema.js";
import { SchemaValidator } from "./validate.mjs";

type Client = ReturnType<typeof createClient<paths>>;
type SyncEvent = components["schemas"]["SyncEventRequest"];
type Answer = components["schemas"]["AnswerInputRequest"];

function setting(name: string): string {
  const value = process.env[name];
  if (value === undefined || value === "") throw new Error(`${name} is not set`);
  return value;
}

function expect(condition: boolean, message: string): asserts condition {
  if (!condition) throw new Error(message);
}

const base = setting("LERNPFAD_URL");
const slug = setting("LERNPFAD_MODULE");
const validator = new SchemaValidator(setting("LERNPFAD_SCHEMA"));
const steps: string[] = [];

function client(token?: string): Client {
  const headers: Record<string, string> = { "Accept-Language": "en" };
  if (token !== undefined) headers["Authorization"] = `Token ${token}`;
  const api = createClient<paths>({ baseUrl: base, headers });
  api.use(validator.middleware());
  return api;
}

/** The calendar address as the server names it (its SITE_URL), fetched from the live server. */
async function fetchCalendar(url: string): Promise<Response> {
  return fetch(base + new URL(url).pathname);
}

async function logIn(): Promise<Client> {
  const { data, error } = await client().POST("/api/v1/auth/token/", {
    body: {
      username: setting("LERNPFAD_USERNAME"),
      password: setting("LERNPFAD_PASSWORD"),
      device_name: "TypeScript phone",
    },
  });
  expect(data !== undefined, `log-in failed: ${JSON.stringify(error)}`);
  const me = client(data.token);
  // A certifying exam needs the name its certificate states.
  const named = await me.PATCH("/api/v1/me/", { body: { full_name: "Mara Typescript" } });
  expect(named.data?.full_name === "Mara Typescript", "the full name was not saved");
  expect(named.data.calendar_feed === null, "a new learner has no calendar address");
  const enrolled = await me.POST("/api/v1/modules/{module}/enrollment/", {
    params: { path: { module: slug } },
  });
  expect(enrolled.response.ok, `enrolling failed: ${enrolled.response.status}`);
  steps.push("log-in");
  return me;
}

type Bundle = components["schemas"]["ModuleBundle"];

async function downloadTheBundle(me: Client): Promise<Bundle> {
  const whole = await me.GET("/api/v1/modules/{module}/bundle/", {
    params: { path: { module: slug } },
  });
  expect(whole.data !== undefined, "no bundle");
  const etag = whole.response.headers.get("ETag");
  expect(etag !== null, "the bundle has no ETag");
  const again = await me.GET("/api/v1/modules/{module}/bundle/", {
    params: { path: { module: slug }, header: { "If-None-Match": etag } },
  });
  expect(again.response.status === 304, `a current bundle is ${again.response.status}, not 304`);
  steps.push(`bundle (${whole.data.steps.length} steps)`);
  return whole.data;
}

async function completeOffline(me: Client, bundle: Bundle): Promise<void> {
  const at = new Date().toISOString();
  const events: SyncEvent[] = [];
  for (const step of bundle.steps) {
    const where = { module: slug, step: step.number, occurred_at: at };
    events.push({ ...where, client_event_id: randomUUID(), event: "opened" });
    for (const section of step.sections) {
      events.push({
        ...where,
        client_event_id: randomUUID(),
        event: "section_viewed",
        section: section.kind,
      });
    }
    events.push({ ...where, client_event_id: randomUUID(), event: "completed" });
  }
  const { data } = await me.POST("/api/v1/progress/sync/", { body: { events } });
  expect(data !== undefined, "sync failed");
  const rejected = data.results.filter((result) => result.status === "rejected");
  expect(rejected.length === 0, `events rejected: ${JSON.stringify(rejected)}`);
  steps.push(`offline progress (${events.length} events)`);
}

async function reviewOffline(me: Client): Promise<void> {
  const due = await me.GET("/api/v1/reviews/due/", {
    params: { query: { include: "back", limit: 100 } },
  });
  expect(due.data !== undefined, "no due queue");
  const cards = due.data.cards.filter((card) => card.is_new).slice(0, 3);
  expect(cards.length === 3, `three new cards expected, got ${cards.length}`);
  expect(cards.every((card) => typeof card.back === "string" && card.back !== ""), "no backs");
  // Reviewed on the train, a second apart from when each card became due (a new card: when it
  // was made), each with the time the phone recorded.
  const good: components["schemas"]["ReviewRatingEnum"] = 3;
  const reviews = cards.map((card, index) => ({
    card: card.id,
    rating: good,
    client_review_id: randomUUID(),
    reviewed_at: new Date(Date.parse(card.due) + (index + 1) * 1000).toISOString(),
  }));
  const first = reviews[0];
  expect(first !== undefined, "no review");
  const { data } = await me.POST("/api/v1/reviews/batch/", {
    body: { reviews: [...reviews, first] },
  });
  expect(data !== undefined, "the batch failed");
  const statuses = data.results.map((result) => result.status);
  expect(
    JSON.stringify(statuses) === JSON.stringify(["applied", "applied", "applied", "duplicate"]),
    `batch results ${JSON.stringify(data.results)}`,
  );
  steps.push("offline reviews (batch with client time)");
}

async function notesWithAStaleEtag(me: Client, bundle: Bundle): Promise<void> {
  const step = bundle.steps.find((s) => s.sections.some((section) => section.kind === "lernauftrag"));
  expect(step !== undefined, "no step with a Lernauftrag");
  const path = { module: slug, number: step.number };
  const read = await me.GET("/api/v1/modules/{module}/steps/{number}/notes/", {
    params: { path },
  });
  const stale = read.response.headers.get("ETag");
  expect(stale !== null, "the notes have no ETag");
  const phone = await me.PUT("/api/v1/modules/{module}/steps/{number}/notes/", {
    params: { path, header: { "If-Match": stale } },
    body: { lernauftrag: "vom Telefon" },
  });
  expect(phone.data?.lernauftrag === "vom Telefon", "the first write failed");
  const refused = await me.PUT("/api/v1/modules/{module}/steps/{number}/notes/", {
    params: { path, header: { "If-Match": stale } },
    body: { lernauftrag: "vom Tablet" },
  });
  expect(refused.response.status === 412, `a stale write is ${refused.response.status}`);
  expect(refused.error?.error.code === "notes_changed", "the 412 is not notes_changed");
  const current = phone.response.headers.get("ETag");
  expect(current !== null, "the write has no ETag");
  const merged = await me.PUT("/api/v1/modules/{module}/steps/{number}/notes/", {
    params: { path, header: { "If-Match": current } },
    body: { lernauftrag: "vom Telefon und vom Tablet" },
  });
  expect(merged.data?.lernauftrag === "vom Telefon und vom Tablet", "the retry failed");
  steps.push("notes (412 on a stale ETag, then saved)");
}

function answerFor(item: components["schemas"]["AttemptItem"]): Answer {
  switch (item.kind) {
    case "short_answer":
      return { item: item.id, text: "eine Antwort" };
    case "numerical":
      return { item: item.id, number: "1" };
    case "matching": {
      const choice = item.choices[0];
      expect(choice !== undefined, "a matching item without choices");
      return {
        item: item.id,
        pairs: item.options.map((option) => ({ option: option.key, choice: choice.key })),
      };
    }
    default: {
      const option = item.options[0];
      expect(option !== undefined, "an item without options");
      return { item: item.id, selected: [option.key] };
    }
  }
}

async function takeTheExamAndCheckTheCertificate(me: Client): Promise<void> {
  const started = await me.POST("/api/v1/modules/{module}/exam/attempts/", {
    params: { path: { module: slug } },
  });
  expect(started.data !== undefined, `the exam did not start: ${JSON.stringify(started.error)}`);
  const attempt = started.data;
  expect(attempt.mode === "certifying", `a ${attempt.mode} attempt`);
  const saved = await me.PUT("/api/v1/exam-attempts/{attempt}/answers/", {
    params: { path: { attempt: attempt.id } },
    body: { answers: attempt.items.map(answerFor) },
  });
  expect(saved.data?.answered_count === attempt.item_count, "not every answer was saved");
  const submitted = await me.POST("/api/v1/exam-attempts/{attempt}/submit/", {
    params: { path: { attempt: attempt.id } },
  });
  const result = submitted.data;
  expect(result !== undefined, "submitting failed");
  expect(result.passed, `the attempt did not pass: ${result.score_percent} %`);
  const link = result.certificate;
  expect(link !== null, "a passed certifying attempt without a certificate");
  const verified = await client().GET("/api/v1/certificates/verify/{code}/", {
    params: { path: { code: link.code } },
  });
  expect(verified.data?.valid === true, "the certificate does not verify");
  expect(verified.data.learner_name === "Mara Typescript", "the certificate names another");
  const mine = await me.GET("/api/v1/certificates/");
  expect(mine.data?.results.some((c) => c.code === link.code) === true, "not in my list");
  steps.push("exam (start, answer, submit) and certificate");
}

async function calendarAddress(me: Client): Promise<void> {
  const made = await me.POST("/api/v1/me/calendar-feed/");
  expect(made.response.status === 201 && made.data !== undefined, "no calendar address");
  const first = made.data.url;
  const ics = await fetchCalendar(first);
  expect(ics.status === 200, `the calendar answers ${ics.status}`);
  expect((ics.headers.get("Content-Type") ?? "").startsWith("text/calendar"), "not iCalendar");
  expect((await ics.text()).startsWith("BEGIN:VCALENDAR"), "not a calendar");
  const again = await me.POST("/api/v1/me/calendar-feed/");
  expect(again.error?.error.code === "calendar_feed_exists", "a second create is not a 409");
  const named = await me.GET("/api/v1/me/");
  expect(named.data?.calendar_feed === first, "/me/ does not name the address");
  const rotated = await me.POST("/api/v1/me/calendar-feed/rotate/");
  expect(rotated.data !== undefined && rotated.data.url !== first, "rotating failed");
  expect((await fetchCalendar(first)).status === 410, "the old address still answers");
  expect((await fetchCalendar(rotated.data.url)).status === 200, "the new address fails");
  steps.push("calendar address (create, fetch, rotate, old one 410)");
}

const me = await logIn();
const bundle = await downloadTheBundle(me);
await completeOffline(me, bundle);
await reviewOffline(me);
await notesWithAStaleEtag(me, bundle);
await takeTheExamAndCheckTheCertificate(me);
await calendarAddress(me);
console.log(JSON.stringify({ steps, validated: validator.checked }));
