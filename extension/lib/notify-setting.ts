/**
 * The panel's one setting: browser notifications when something newly needs the person (on by
 * default). Kept in extension storage, where the panel writes it and the background reads it.
 * Design: docs/design.md §7.
 */
import { storage } from "wxt/utils/storage";

export const notifySetting = storage.defineItem<boolean>("local:notifications", { fallback: true, version: 1 });
