import { Module } from '@nestjs/common';
import { AccountsRpcController } from './accounts/accounts.rpc-controller';
import { AccountsService } from './accounts/accounts.service';
import { UsersRepository } from './accounts/users.repository';
import { ExportRepository } from './export/export.repository';
import { ExportRpcController } from './export/export.rpc-controller';
import { ExportService } from './export/export.service';
import { LoginCodesRepository } from './login-codes/login-codes.repository';
import { LoginCodesRpcController } from './login-codes/login-codes.rpc-controller';
import { LoginCodesService } from './login-codes/login-codes.service';
import { MailBudget } from './mail-limits/mail-budget';
import { MailSendsRepository } from './mail-limits/mail-sends.repository';
import { PasskeysRepository } from './passkeys/passkeys.repository';
import { PasskeysRpcController } from './passkeys/passkeys.rpc-controller';
import { PasskeysService } from './passkeys/passkeys.service';
import { PasswordHasher } from './passwords/password-hasher';
import { PasswordTokensRepository } from './password-tokens/password-tokens.repository';
import { PasswordTokensRpcController } from './password-tokens/password-tokens.rpc-controller';
import { PasswordTokensService } from './password-tokens/password-tokens.service';
import { SessionRevocations } from './sessions/session-revocations';
import { SessionsRepository } from './sessions/sessions.repository';
import { SessionsRpcController } from './sessions/sessions.rpc-controller';
import { SessionsService } from './sessions/sessions.service';

// One module: the features share users, sessions and the password hasher at every turn.
@Module({
  controllers: [AccountsRpcController, SessionsRpcController, LoginCodesRpcController, PasswordTokensRpcController, PasskeysRpcController, ExportRpcController],
  providers: [
    UsersRepository,
    SessionsRepository,
    LoginCodesRepository,
    PasswordTokensRepository,
    MailSendsRepository,
    PasswordHasher,
    SessionRevocations,
    SessionsService,
    MailBudget,
    PasswordTokensService,
    LoginCodesService,
    AccountsService,
    PasskeysRepository,
    PasskeysService,
    ExportRepository,
    ExportService,
  ],
})
export class IdentityModule {}
