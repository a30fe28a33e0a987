import type { Metadata } from 'next';
import { RegisterForm } from '@/components/account-forms';

export const metadata: Metadata = { title: 'Create an account' };

export default function RegisterPage() {
  return (
    <>
      <h1>Create an account</h1>
      <RegisterForm />
    </>
  );
}
