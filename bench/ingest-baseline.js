// The ingest bench's two baselines, each in a process of its own like the daemon:
//   node bench/ingest-baseline.js noop          reads the body and answers 202, no other work
//   node bench/ingest-baseline.js insert FILE   parses the body, one better-sqlite3 INSERT (its own
//                                               transaction: WAL, synchronous=NORMAL), then 202
// Prints its port on stdout once listening.
import { createServer } from "node:http";
import Database from "better-sqlite3";

const [mode, file] = process.argv.slice(2);
const ANSWER = '{"accepted":true}';
const HEADERS = { "content-type": "application/json; charset=utf-8", "content-length": ANSWER.length };

let store = null;
if (mode === "insert") {
  const db = new Database(file);
  db.pragma("journal_mode = WAL");
  db.pragma("synchronous = NORMAL");
  db.exec(
    "CREATE TABLE IF NOT EXISTS signals (id INTEGER PRIMARY KEY, waitpoint TEXT NOT NULL, key TEXT, status TEXT NOT NULL, message TEXT, received_at INTEGER NOT NULL)",
  );
  const insert = db.prepare(
    "INSERT INTO signals (waitpoint, key, status, message, received_at) VALUES (?, ?, ?, ?, ?)",
  );
  store = (body) => {
    const signal = JSON.parse(body);
    insert.run(signal.id, signal.key ?? null, signal.status, signal.message ?? null, Date.now());
  };
} else if (mode !== "noop") {
  throw new Error(`Expected mode noop or insert FILE, got ${JSON.stringify(mode)}`);
}

const server = createServer((req, res) => {
  const chunks = [];
  req.on("data", (chunk) => chunks.push(chunk));
  req.on("end", () => {
    if (store) store(Buffer.concat(chunks).toString("utf8"));
    res.writeHead(202, HEADERS);
    res.end(ANSWER);
  });
});
server.listen(0, "127.0.0.1", () => process.stdout.write(`${server.address().port}\n`));
