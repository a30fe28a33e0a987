import type { Metadata } from 'next';
import { SignInRequired, SignOutButton } from '@/components/account-forms';
import { AccountNav } from '@/components/account-nav';
import { currentUser } from '@/lib/account';

export const metadata: Metadata = { title: 'Account' };

export default async function AccountPage() {
  const user = await currentUser();
  if (user === null) {
    return (
      <>
        <h1>Account</h1>
        <SignInRequired />
      </>
    );
  }
  return (
    <>
      <h1>Account</h1>
      <AccountNav />
      <dl className="facts">
        <dt>Username</dt>
        <dd>{user.username}</dd>
        <dt>Name</dt>
        <dd>{`${user.first_name} ${user.last_name}`.trim() || '—'}</dd>
        <dt>E-mail</dt>
        <dd>
          {user.email} {user.email_verified ? '(verified)' : '(not verified yet)'}
        </dd>
      </dl>
      <SignOutButton />
    </>
  );
}
