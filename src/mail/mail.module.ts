import { Module } from '@nestjs/common';
import { AuthModule } from '../auth/auth.module.js';
import { MailService } from './mail.service.js';
import { MailTransport } from './mail-transport.js';

/** E-mail: SMTP (SMTP_URL) or the log, sent by the `mail.send` job with retries. */
@Module({
  imports: [AuthModule],
  providers: [MailService, MailTransport],
})
export class MailModule {}
