import { Inject, Injectable, Logger, OnApplicationShutdown, OnModuleInit } from '@nestjs/common';
import nodemailer, { type Transporter } from 'nodemailer';
import type { AppConfig } from '../config/app-config.js';
import { APP_CONFIG } from '../config/config.module.js';
import type { MailContent } from './templates/template.js';

export interface MailMessage extends MailContent {
  to: string;
}

/**
 * Sends through the SMTP relay of SMTP_URL (a connection per message, so a relay that restarts costs nothing),
 * or, with no SMTP_URL, writes each message to the log. Outside production the log carries the text too: the
 * developer's way to the links of password reset and verification. In production it carries only recipient and
 * subject, since the text holds one-time tokens.
 */
@Injectable()
export class MailTransport implements OnModuleInit, OnApplicationShutdown {
  private readonly logger = new Logger('Mail');
  private readonly smtp: Transporter | null;

  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {
    const { smtpUrl, from } = config.mail;
    this.smtp =
      smtpUrl === null
        ? null
        : nodemailer.createTransport(
            { url: smtpUrl, connectionTimeout: 10_000, greetingTimeout: 10_000, socketTimeout: 30_000 },
            { from },
          );
  }

  onModuleInit(): void {
    if (this.smtp === null && this.config.nodeEnv === 'production') {
      this.logger.warn(
        'SMTP_URL is not set: e-mails are not delivered, only their recipient and subject are logged',
      );
    }
  }

  async send(message: MailMessage): Promise<void> {
    if (this.smtp === null) {
      const text = this.config.nodeEnv === 'production' ? '' : `\n${message.text}`;
      this.logger.log(`E-mail to ${message.to}: ${message.subject}${text}`);
      return;
    }
    await this.smtp.sendMail(message);
  }

  onApplicationShutdown(): void {
    this.smtp?.close();
  }
}
