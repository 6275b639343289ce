// The part of mailauth 4.9.5 (which ships no typings) the relay uses: authenticate() and its result, and the
// alignment rule its DMARC check applies (README.md of node_modules/mailauth; lib/mailauth.js, lib/tools.js).

declare module 'mailauth' {
  /** A check's outcome: pass, fail, softfail, neutral, none, policy, temperror, permerror. */
  export interface AuthenticationStatus {
    result: string;
    comment?: string;
    /** DKIM: the signing domain when it aligns (relaxed) with the From header's first address, else false. */
    aligned?: string | false;
  }

  export interface DkimSignatureResult {
    /** The signature's `d=`; absent on the one result of an unsigned mail (status none). */
    signingDomain?: string;
    selector?: string;
    status: AuthenticationStatus;
  }

  export interface AuthenticationResult {
    dkim: {
      /** Every address of the From header(s), as mailauth read them. */
      headerFrom: string[];
      envelopeFrom: string | false;
      results: DkimSignatureResult[];
    };
    /** Of the envelope sender (MAIL FROM); its `domain` is that sender's domain. */
    spf: { domain: string; status: AuthenticationStatus } | false;
    /** false when the From header names no address, or several. */
    dmarc:
      | {
          domain?: string;
          status: AuthenticationStatus;
          policy?: string;
          /** What aligned, and whether the record asks for strict alignment (`aspf=s`, `adkim=s`); absent without a record. */
          alignment?: { spf: { result?: string; strict: boolean }; dkim: { result?: string; strict: boolean } };
        }
      | false;
  }

  export interface AuthenticateOptions {
    ip: string;
    sender?: string;
    helo?: string;
    mta?: string;
    resolver?: (name: string, type: string) => Promise<unknown>;
    disableArc?: boolean;
    disableBimi?: boolean;
  }

  export function authenticate(message: Buffer | string | NodeJS.ReadableStream, options: AuthenticateOptions): Promise<AuthenticationResult>;
}

declare module 'mailauth/lib/tools' {
  /** The first of `domains` in the same organizational domain as `fromDomain` (relaxed alignment), or false. */
  export function getAlignment(fromDomain: string, domains: string[]): { domain: string } | false;
}

declare module 'mailauth/lib/dkim/sign' {
  export function dkimSign(
    message: Buffer | string,
    options: { signatureData: Array<{ signingDomain: string; selector: string; privateKey: string | Buffer }> },
  ): Promise<{ signatures: string; errors: unknown[] }>;
}
