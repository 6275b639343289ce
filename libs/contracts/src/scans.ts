import { z } from 'zod';

/** Scans an owner sees: those of the last 30 days, at most this many, newest first. */
export const SCAN_HISTORY_DAYS = 30;
export const SCAN_HISTORY_MAX = 100;

/** At most one scan e-mail per item in this window; pushes are not coalesced. */
export const SCAN_ALERT_MAIL_WINDOW_MINUTES = 15;

/** What a scan says of the device that scanned, from its User-Agent: a kind, never the string. */
export const deviceKindSchema = z.enum(['phone', 'tablet', 'desktop', 'other']);
export type DeviceKind = z.infer<typeof deviceKindSchema>;

/** One scan of a tag's finder page, as its owner sees it: when, roughly where (offline IP lookup), on what kind of device. */
export const scanSchema = z.object({
  scanned_at: z.string(),
  /** The city the scanning address belongs to, in English, when the offline database knows it. */
  city: z.string().nullable(),
  /** ISO 3166-1 alpha-2, when known. */
  country: z.string().nullable(),
  device_kind: deviceKindSchema,
});
export type Scan = z.infer<typeof scanSchema>;

/** `GET /api/v1/user/items/{code}/scans`. */
export const scanHistorySchema = z.object({ scans: z.array(scanSchema) });
export type ScanHistory = z.infer<typeof scanHistorySchema>;

/**
 * `POST /api/v1/items/{code}/location` (with the finder's token): where the finder found the item, by their consent.
 * Coarse unless `precise`; the server rounds either way and never trusts the client to have.
 */
export const shareLocationBodySchema = z.strictObject({
  lat: z.number().min(-90).max(90),
  lon: z.number().min(-180).max(180),
  accuracy_m: z.number().min(0).max(1_000_000),
  precise: z.boolean(),
});
export type ShareLocationBody = z.infer<typeof shareLocationBodySchema>;

/** A shared location as a conversation entry carries it (already rounded). */
export const sharedLocationSchema = z.object({
  lat: z.number(),
  lon: z.number(),
  accuracy_m: z.number().int(),
  precise: z.boolean(),
});
export type SharedLocation = z.infer<typeof sharedLocationSchema>;
