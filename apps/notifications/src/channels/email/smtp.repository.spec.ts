import { classifySmtpError } from './smtp.repository';

describe('SMTP failures', () => {
  it('retries 4xx answers and connection failures, and gives up at once on 5xx (F12)', () => {
    expect(classifySmtpError(Object.assign(new Error('451 try later'), { responseCode: 451 })).permanent).toBe(false);
    expect(classifySmtpError(Object.assign(new Error('connect ECONNREFUSED'), { code: 'ESOCKET' })).permanent).toBe(false);
    expect(classifySmtpError(Object.assign(new Error('550 no such user'), { responseCode: 550 })).permanent).toBe(true);
  });

  it('keeps the server text out of the error: it may quote the address', () => {
    const error = classifySmtpError(Object.assign(new Error('550 5.1.1 <owner@example.test>: user unknown'), { responseCode: 550 }));
    expect(error.message).toBe('SMTP 550 (permanent)');
    expect(error.message).not.toContain('example.test');
  });
});
