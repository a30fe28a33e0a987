import { afterEach, describe, expect, it, jest } from '@jest/globals';
import { Logger } from '@nestjs/common';
import { loadConfig } from '../config/app-config.js';
import { MailTransport } from './mail-transport.js';

const message = {
  to: 'jane@example.com',
  subject: 'Reset your password',
  text: 'https://shop.example/reset-password?token=secret-token',
  html: '<p>secret-token</p>',
};

describe('MailTransport without SMTP_URL', () => {
  afterEach(() => {
    jest.restoreAllMocks();
  });

  it('outside production logs recipient, subject and text: the developer follows the link from the log', async () => {
    const log = jest.spyOn(Logger.prototype, 'log').mockImplementation(() => undefined);
    const warn = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    const transport = new MailTransport(loadConfig({ NODE_ENV: 'development' }));
    transport.onModuleInit();
    await transport.send(message);
    expect(log).toHaveBeenCalledWith(
      'E-mail to jane@example.com: Reset your password\nhttps://shop.example/reset-password?token=secret-token',
    );
    expect(warn).not.toHaveBeenCalled();
  });

  it('in production logs only recipient and subject (the text holds tokens) and warns at start', async () => {
    const log = jest.spyOn(Logger.prototype, 'log').mockImplementation(() => undefined);
    const warn = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    const transport = new MailTransport(
      loadConfig({ NODE_ENV: 'production', JWT_SECRET: 'production-secret-production-secret-0123' }),
    );
    transport.onModuleInit();
    await transport.send(message);
    expect(log).toHaveBeenCalledWith('E-mail to jane@example.com: Reset your password');
    expect(JSON.stringify([...log.mock.calls, ...warn.mock.calls])).not.toContain('secret-token');
    expect(warn).toHaveBeenCalledWith(
      'SMTP_URL is not set: e-mails are not delivered, only their recipient and subject are logged',
    );
  });
});
