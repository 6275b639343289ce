import { z } from 'zod';
import { baseEnvSchema, databaseEnvSchema, envSchemas, loadConfig, redisEnvSchema } from '@homing/platform';

const notificationsEnvSchema = baseEnvSchema
  .extend(databaseEnvSchema.shape)
  .extend(redisEnvSchema.shape)
  .extend({
    PORT: envSchemas.port.default(3004),
    /** One image, two roles (ARCHITECTURE §1): event consumers, queue workers, or both, so workers scale alone. */
    NOTIFICATIONS_ROLE: z.enum(['consumer', 'worker', 'all']).default('all'),
    /** Where e-mail is handed over: `smtp://` or `smtps://`, credentials in the URL if any. Development: MailDev. */
    SMTP_URL: envSchemas.urlWithProtocol(['smtp:', 'smtps:']).default('smtp://127.0.0.1:1025'),
    /** The From header of every e-mail. */
    MAIL_FROM: z.string().min(3).max(200).regex(/^[^\r\n]*$/, 'one line').default('Homing <no-reply@homing.localhost>'),
    /** The web app's address; every link in an e-mail starts with it. */
    PUBLIC_URL: envSchemas.urlWithProtocol(['http:', 'https:']).default('http://localhost:8080'),
    /**
     * Prefix of every BullMQ key in Redis. Unset: `homing`, or `homing_<NATS_NAMESPACE>` when a namespace is set, so
     * environments (and test runs) sharing one Redis never take each other's jobs.
     */
    BULLMQ_PREFIX: z.string().regex(/^[A-Za-z0-9_-]+$/, 'letters, digits, _ and - only').max(64).optional(),
  });

export type NotificationsConfig = z.infer<typeof notificationsEnvSchema>;

export function loadNotificationsConfig(env: NodeJS.ProcessEnv = process.env): NotificationsConfig {
  return loadConfig(notificationsEnvSchema, env);
}

/** The BullMQ key prefix this process uses (see `BULLMQ_PREFIX`). */
export function bullmqPrefixOf(config: Pick<NotificationsConfig, 'BULLMQ_PREFIX' | 'NATS_NAMESPACE'>): string {
  return config.BULLMQ_PREFIX ?? (config.NATS_NAMESPACE ? `homing_${config.NATS_NAMESPACE}` : 'homing');
}

/** Links in e-mails: the public URL without a trailing slash. */
export function publicUrlOf(config: Pick<NotificationsConfig, 'PUBLIC_URL'>): string {
  return config.PUBLIC_URL.replace(/\/+$/, '');
}

export const NOTIFICATIONS_CONFIG = Symbol('NOTIFICATIONS_CONFIG');
