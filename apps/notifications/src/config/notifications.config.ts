import { z } from 'zod';
import { DEFAULT_PUSH_SERVICE_HOSTS, parsePushServiceHosts, type PushServiceHost } from '../channels/push/push-endpoints';
import { baseEnvSchema, databaseEnvSchema, envSchemas, erasureEnvSchema, loadConfig, redisEnvSchema, retentionEnvSchema } from '@homing/platform';
import { DEFAULT_BULLMQ_PREFIX } from '../persisted-names';

const notificationsEnvSchema = baseEnvSchema
  .extend(databaseEnvSchema.shape)
  .extend(redisEnvSchema.shape)
  .extend(retentionEnvSchema.shape)
  .extend(erasureEnvSchema.shape)
  .extend({
    PORT: envSchemas.port.default(3004),
    /** Delivery records (who was sent what, when) are deleted this many days after they were made. */
    DELIVERY_RETENTION_DAYS: z.coerce.number().min(1).max(10 * 365).default(90),
    /**
     * How long a worker holds a job without renewing its lock, and how often workers look for jobs whose holder died:
     * a SIGKILLed worker's jobs run again within about twice this. Shorter recovers sooner, but a worker whose event
     * loop stalls longer than this loses its jobs to another worker.
     */
    JOB_LOCK_SECONDS: z.coerce.number().int().min(2).max(300).default(15),
    /**
     * How long a run's claim on a job's delivery row holds: another run of the same job (its worker lost the lock but
     * may still be sending) waits this long before it may send. Longer than a run can take from its claim to its `sent`
     * row (RPCs give up after 2 s each, the SMTP transport after 10 + 10 + 20 s, a push after 10 s, the `sent` row waits
     * 20 s for a database away: about 70 s); a killed worker's job also waits out its claim.
     */
    DELIVERY_CLAIM_SECONDS: z.coerce.number().int().min(5).max(600).default(90),
    /** One image, two roles (ARCHITECTURE §1): event consumers, queue workers, or both, so workers scale alone. */
    NOTIFICATIONS_ROLE: z.enum(['consumer', 'worker', 'all']).default('all'),
    /** Where e-mail is handed over: `smtp://` or `smtps://`, credentials in the URL if any. Development: MailDev. */
    SMTP_URL: envSchemas.urlWithProtocol(['smtp:', 'smtps:']).default('smtp://127.0.0.1:1025'),
    /** The From header of every e-mail. */
    MAIL_FROM: z.string().min(3).max(200).regex(/^[^\r\n]*$/, 'one line').default('Homing <no-reply@homing.localhost>'),
    /** The e-mail relay's domain: every e-mail about a conversation has a `Reply-To` there (`c-{token}@…`). */
    RELAY_DOMAIN: envSchemas.relayDomain.default('relay.localhost'),
    /** The web app's address; every link in an e-mail starts with it. */
    PUBLIC_URL: envSchemas.urlWithProtocol(['http:', 'https:']).default('http://localhost:8080'),
    /**
     * Prefix of every BullMQ key in Redis. Unset: `homing`, or `homing_<NATS_NAMESPACE>` when a namespace is set, so
     * environments (and test runs) sharing one Redis never take each other's jobs.
     */
    BULLMQ_PREFIX: z.string().regex(/^[A-Za-z0-9_-]+$/, 'letters, digits, _ and - only').max(64).optional(),
    /**
     * How long the owner's e-mail about a finder's message waits when the owner has a push subscription (pushed at
     * once): sent only if the message is still unread then. Minutes, decimals allowed; 0 sends at once.
     */
    OWNER_EMAIL_DELAY_MINUTES: z.coerce.number().min(0).max(24 * 60).default(10),
    /**
     * How long a new owner's welcome e-mail waits after their account was made at activation, which then offers to
     * choose a password: the mail offers the set-password link only if they still have none. Minutes, decimals allowed.
     */
    WELCOME_MAIL_DELAY_MINUTES: z.coerce.number().min(0).max(24 * 60).default(5),
    /** VAPID application server keys (base64url: a 65-byte P-256 public key, its 32-byte private key). */
    VAPID_PUBLIC_KEY: z.string().refine((key) => Buffer.from(key, 'base64url').length === 65, 'a base64url P-256 public key (65 bytes)'),
    VAPID_PRIVATE_KEY: z.string().refine((key) => Buffer.from(key, 'base64url').length === 32, 'a base64url P-256 private key (32 bytes)'),
    /** Push services write here when a subscription misbehaves: a real `mailto:`. */
    VAPID_SUBJECT: z.string().regex(/^mailto:[^@\s]+@[^@\s]+$/, 'a mailto: address').default('mailto:ops@homing.localhost'),
    /**
     * The push services an endpoint may name (S12): host or `*.domain`, optionally `:port` (else 443), comma-separated.
     * Default: the browsers' push services. Tests add their local push service; production refuses IP addresses and
     * localhost here.
     */
    PUSH_SERVICE_HOSTS: z.string().default(DEFAULT_PUSH_SERVICE_HOSTS.join(',')).transform((value, context): PushServiceHost[] => {
      try {
        return parsePushServiceHosts(value);
      } catch (error) {
        context.addIssue({ code: 'custom', message: error instanceof Error ? error.message : String(error) });
        return z.NEVER;
      }
    }),
  })
  .superRefine((config, context) => {
    // A push service on the loopback or a private address would let a subscription make the workers call inside.
    if (config.NODE_ENV !== 'production') return;
    const internal = config.PUSH_SERVICE_HOSTS.filter((host) => host.internal).map((host) => host.pattern);
    if (internal.length > 0) context.addIssue({ code: 'custom', path: ['PUSH_SERVICE_HOSTS'], message: `no IP addresses or localhost in production: ${internal.join(', ')}` });
  });

export type NotificationsConfig = z.infer<typeof notificationsEnvSchema>;
export type NotificationsRole = NotificationsConfig['NOTIFICATIONS_ROLE'];

export function loadNotificationsConfig(env: NodeJS.ProcessEnv = process.env): NotificationsConfig {
  return loadConfig(notificationsEnvSchema, env);
}

/** The BullMQ key prefix this process uses (see `BULLMQ_PREFIX`). */
export function bullmqPrefixOf(config: Pick<NotificationsConfig, 'BULLMQ_PREFIX' | 'NATS_NAMESPACE'>): string {
  return config.BULLMQ_PREFIX ?? (config.NATS_NAMESPACE ? `${DEFAULT_BULLMQ_PREFIX}_${config.NATS_NAMESPACE}` : DEFAULT_BULLMQ_PREFIX);
}

/** Links in e-mails: the public URL without a trailing slash. */
export function publicUrlOf(config: Pick<NotificationsConfig, 'PUBLIC_URL'>): string {
  return config.PUBLIC_URL.replace(/\/+$/, '');
}
