/** An SMTP answer other than 250: the code and text the sending server gets (and, for 5xx, bounces to its user). */
export class SmtpReply extends Error {
  constructor(
    readonly responseCode: number,
    message: string,
  ) {
    super(message);
  }
}
