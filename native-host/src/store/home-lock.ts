/**
 * One daemon per home: an exclusive SQLite lock on `$VIGIL_HOME/daemon.lock`, held for the
 * daemon's life. It is a real OS lock, so it goes with the process — also on kill -9 — and two
 * daemons started in the same instant cannot both win it.
 * Design: docs/design.md §9.
 */
import Database from "better-sqlite3";

export class HomeLockedError extends Error {
  override name = "HomeLockedError";
}

/** Takes the lock or throws HomeLockedError; `close()` releases it. */
export function lockHome(file: string): { close(): void } {
  const db = new Database(file);
  try {
    db.pragma("busy_timeout = 0");
    db.pragma("locking_mode = EXCLUSIVE");
    // The first write under EXCLUSIVE locking mode keeps the lock until the connection closes.
    db.exec("BEGIN EXCLUSIVE; CREATE TABLE IF NOT EXISTS holder (pid INTEGER); DELETE FROM holder;");
    db.prepare("INSERT INTO holder (pid) VALUES (?)").run(process.pid);
    db.exec("COMMIT");
  } catch (error) {
    db.close();
    if ((error as { code?: string }).code?.startsWith("SQLITE_BUSY")) {
      throw new HomeLockedError("another Vigil daemon holds this home's lock");
    }
    throw error;
  }
  return { close: () => db.close() };
}
