import type { Metadata } from 'next';
import { PasswordForm, SignInRequired } from '@/components/account-forms';
import { AccountNav } from '@/components/account-nav';
import { currentUser } from '@/lib/account';

export const metadata: Metadata = { title: 'Password' };

export default async function PasswordPage() {
  const user = await currentUser();
  return (
    <>
      <h1>Change password</h1>
      {user === null ? (
        <SignInRequired />
      ) : (
        <>
          <AccountNav />
          <PasswordForm />
        </>
      )}
    </>
  );
}
