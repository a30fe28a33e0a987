import {
  BadRequestException,
  ForbiddenException,
  Inject,
  Injectable,
  Logger,
  NotFoundException,
  OnApplicationBootstrap,
} from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { IsNull, Repository } from 'typeorm';
import { assertOwnerOrAdmin, type AuthUser } from '../auth/auth-user.js';
import { USERNAME_CHARACTERS } from '../auth/dto/register.dto.js';
import { PasswordHasher } from '../auth/password-hasher.js';
import { Paginated } from '../common/envelope.js';
import { FieldError, ValidationFailedException } from '../common/validation.js';
import { containsPattern, LIKE_ESCAPE, SearchPageQueryDto, pageWindow } from '../common/pagination.js';
import type { AppConfig } from '../config/app-config.js';
import { APP_CONFIG } from '../config/config.module.js';
import { throwUniqueViolationAs400 } from '../database/errors.js';
import { forUpdate } from '../database/row-locks.js';
import { TransactionRunner, type Tx } from '../database/transaction-runner.js';
import { CustomerGroupDirectory } from '../customer-groups/customer-group-directory.js';
import { EventBus } from '../events/event-bus.js';
import { OrderHistory } from '../orders/order-history.js';
import { UserSessions } from '../sessions/user-sessions.js';
import { toUserResponse, UserResponseDto } from './dto/user-response.dto.js';
import type { UpdateUserDto } from './dto/update-user.dto.js';
import { type NewAccount, type Role, UserAccounts } from './user-accounts.js';
import { User } from './user.entity.js';

@Injectable()
export class UsersService implements UserAccounts, OnApplicationBootstrap {
  private readonly logger = new Logger(UsersService.name);

  constructor(
    @InjectRepository(User) private readonly users: Repository<User>,
    private readonly hasher: PasswordHasher,
    private readonly transactions: TransactionRunner,
    private readonly sessions: UserSessions,
    private readonly orders: OrderHistory,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly events: EventBus,
    private readonly customerGroups: CustomerGroupDirectory,
  ) {}

  /** Creates the configured admin account once; safe to run on every start and on several instances. */
  async onApplicationBootstrap(): Promise<void> {
    const admin = this.config.admin;
    if (admin === null) return;
    const exists = await this.users.exists({ where: { username: admin.username }, withDeleted: true });
    if (exists) return;
    try {
      await this.insert({ username: admin.username, email: admin.email, password: admin.password }, 'admin');
      this.logger.log(`Created admin account ${admin.username}`);
    } catch (error) {
      if (!(error instanceof BadRequestException)) throw error;
    }
  }

  async register(dto: NewAccount): Promise<User> {
    return this.insert(dto, 'user');
  }

  private async insert(dto: NewAccount, role: Role): Promise<User> {
    // Soft-deleted accounts keep their username and email: a name is never handed to someone else.
    const taken = await this.users
      .createQueryBuilder('u')
      .withDeleted()
      .select(['u.username', 'u.email'])
      .where('u.username = :username OR u.email = :email', { username: dto.username, email: dto.email })
      .getMany();
    const problems: FieldError[] = [];
    const same = (a: string, b: string) => a.toLowerCase() === b.toLowerCase();
    if (taken.some((u) => same(u.username, dto.username))) {
      problems.push({ field: 'username', rule: 'unique', message: 'username is already taken' });
    }
    if (taken.some((u) => same(u.email, dto.email))) {
      problems.push({ field: 'email', rule: 'unique', message: 'email is already registered' });
    }
    if (problems.length > 0) throw new ValidationFailedException(problems);

    const user = this.users.create({
      username: dto.username,
      email: dto.email,
      passwordHash: await this.hasher.hash(dto.password),
      firstName: dto.first_name ?? '',
      lastName: dto.last_name ?? '',
      phone: dto.phone ?? '',
      address: dto.address ?? '',
      role,
      isActive: true,
      // The configured admin's address is the operator's; a registered one is verified by its link.
      emailVerified: role === 'admin',
    });
    try {
      return await this.transactions.run('create user', async (manager) => {
        await manager.insert(User, user);
        const created = await manager.findOneByOrFail(User, { id: user.id });
        await this.events.publish(manager, 'user.created', toUserResponse(created, true));
        return created;
      });
    } catch (error) {
      // Two registrations racing for the same name: the unique index decides.
      throwUniqueViolationAs400(error, 'username', 'username or email is already taken');
    }
  }

  /**
   * For login: the active or inactive account with its password hash, or null. Only a name registration could
   * have given is looked up: MySQL's collation would also match `alicé` or `alice ` to `alice`, a name the
   * login lock counts apart.
   */
  async findForLogin(username: string): Promise<User | null> {
    if (!USERNAME_CHARACTERS.test(username)) return null;
    return this.users
      .createQueryBuilder('u')
      .addSelect('u.passwordHash')
      .where('u.username = :username', { username })
      .getOne();
  }

  /** The password hash of an existing account, or null. */
  async findPasswordHash(id: number): Promise<string | null> {
    const user = await this.users
      .createQueryBuilder('u')
      .select(['u.id', 'u.passwordHash'])
      .where('u.id = :id', { id })
      .getOne();
    return user?.passwordHash ?? null;
  }

  async setPasswordHash(tx: Tx, id: number, passwordHash: string): Promise<void> {
    await tx.update(User, { id, deletedAt: IsNull() }, { passwordHash, updatedAt: new Date() });
  }

  /** The email column compares ignoring case on both databases (NOCASE, *_ci), so UQ_users_email serves this. */
  findActiveByEmail(email: string): Promise<User | null> {
    return this.users.findOneBy({ email, isActive: true });
  }

  findActive(id: number): Promise<User | null> {
    return this.users.findOneBy({ id, isActive: true });
  }

  async markEmailVerified(tx: Tx, id: number): Promise<void> {
    await tx.update(User, { id, deletedAt: IsNull() }, { emailVerified: true, updatedAt: new Date() });
  }

  async list(query: SearchPageQueryDto): Promise<Paginated<UserResponseDto>> {
    const { page, pageSize, skip } = pageWindow(query, this.config.pageSizeMax);
    const qb = this.users.createQueryBuilder('u').orderBy('u.id', 'ASC').skip(skip).take(pageSize);
    if (query.search !== undefined && query.search !== '') {
      qb.where(
        ['u.username', 'u.email', 'u.firstName', 'u.lastName']
          .map((column) => `${column} LIKE :pattern ESCAPE '${LIKE_ESCAPE}'`)
          .join(' OR '),
        { pattern: containsPattern(query.search) },
      );
    }
    const [users, total] = await qb.getManyAndCount();
    const groups = await this.customerGroups.groupsOfEach(
      this.users.manager,
      users.map((user) => user.id),
    );
    return new Paginated(
      users.map((user) => ({ ...toUserResponse(user, false), customer_group_ids: groups.get(user.id)! })),
      total,
      page,
      pageSize,
    );
  }

  async get(id: number, actor: AuthUser): Promise<UserResponseDto> {
    assertSelfOrAdmin(id, actor);
    return this.detail(id);
  }

  async update(id: number, dto: UpdateUserDto, actor: AuthUser): Promise<UserResponseDto> {
    assertSelfOrAdmin(id, actor);
    if ((dto.role !== undefined || dto.is_active !== undefined) && actor.role !== 'admin') {
      throw new ForbiddenException('Only an admin may change role or is_active');
    }
    const changes: Partial<User> = {
      firstName: dto.first_name,
      lastName: dto.last_name,
      phone: dto.phone,
      address: dto.address,
      role: dto.role,
      isActive: dto.is_active,
    };
    const defined = Object.fromEntries(Object.entries(changes).filter(([, value]) => value !== undefined));
    // Deactivation and a change of role end the user's sessions; reactivation revives none of them.
    await this.transactions.run('update user', async (manager) => {
      const removals: FieldError[] = [];
      if (dto.role === 'user')
        removals.push(lastAdmin('role', 'the last active admin cannot lose the admin role'));
      if (dto.is_active === false)
        removals.push(lastAdmin('is_active', 'the last active admin cannot be deactivated'));
      await keepAnActiveAdmin(manager, id, removals);
      const before = await manager.findOne(User, { select: { id: true, role: true }, where: { id } });
      const result = await manager.update(
        User,
        { id, deletedAt: IsNull() },
        { ...defined, updatedAt: new Date() },
      );
      if (result.affected === 0 || before === null) throw new NotFoundException(`User ${id} not found`);
      const ends = dto.is_active === false || (dto.role !== undefined && dto.role !== before.role);
      if (ends) await this.sessions.revokeAll(manager, id, null);
    });
    return this.detail(id);
  }

  /** The account as its detail shows it: with phone, address and its customer groups. */
  private async detail(id: number): Promise<UserResponseDto> {
    const user = await this.findOrFail(id);
    const groupIds = await this.customerGroups.groupsOf(this.users.manager, id);
    return { ...toUserResponse(user, true), customer_group_ids: groupIds };
  }

  /** Soft-deletes the account, ends its sessions and cancels its pending orders (their stock goes back). */
  async remove(id: number, actor: AuthUser): Promise<void> {
    assertSelfOrAdmin(id, actor);
    await this.transactions.run('delete user', async (manager) => {
      await keepAnActiveAdmin(manager, id, [lastAdmin('id', 'the last active admin cannot be deleted')]);
      const now = new Date();
      const result = await manager.update(
        User,
        { id, deletedAt: IsNull() },
        // Dates given: softDelete() writes CURRENT_TIMESTAMP, which has whole seconds on SQLite.
        { deletedAt: now, updatedAt: now },
      );
      if (result.affected === 0) throw new NotFoundException(`User ${id} not found`);
      await this.sessions.revokeAll(manager, id, null);
      await this.orders.cancelPendingOf(manager, id, {
        type: actor.role === 'admin' && actor.id !== id ? 'staff' : 'customer',
        id: actor.id,
      });
    });
  }

  private async findOrFail(id: number): Promise<User> {
    const user = await this.users.findOneBy({ id });
    if (user === null) throw new NotFoundException(`User ${id} not found`);
    return user;
  }
}

function assertSelfOrAdmin(id: number, actor: AuthUser): void {
  assertOwnerOrAdmin(actor, id, { hide: false, forbidden: 'You may only access your own user record' });
}

const lastAdmin = (field: string, message: string): FieldError => ({ field, rule: 'lastAdmin', message });

/**
 * Refuses with `refusals` a change that would take user `id` out of the active admins when it is the last one.
 * The rows of the active admins and of the user are locked first, in ascending id order, before anything else is
 * written, and the decision is taken on what the lock reads: of two admins demoting each other at once, the
 * second waits for the first and then sees its change. (An admin promoted after the first read is not counted,
 * which can only refuse, never leave none.)
 */
async function keepAnActiveAdmin(tx: Tx, id: number, refusals: FieldError[]): Promise<void> {
  if (refusals.length === 0) return;
  const admins = await tx.find(User, { select: { id: true }, where: { role: 'admin', isActive: true } });
  const locked = await forUpdate(
    tx
      .getRepository(User)
      .createQueryBuilder('u')
      .select(['u.id', 'u.role', 'u.isActive'])
      .where('u.id IN (:...ids)', { ids: [id, ...admins.map((admin) => admin.id)] })
      .orderBy('u.id', 'ASC'),
  ).getMany();
  const activeAdmin = (user: User) => user.role === 'admin' && user.isActive;
  const target = locked.find((user) => user.id === id);
  if (target === undefined || !activeAdmin(target)) return;
  if (!locked.some((user) => user.id !== id && activeAdmin(user)))
    throw new ValidationFailedException(refusals);
}
