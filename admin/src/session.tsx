// The signed-in administrator, shared by every page.
import { createContext } from "preact";
import { useContext } from "preact/hooks";

export interface AdminUser {
  id: number;
  email: string;
  firstname: string;
  lastname: string | null;
  isActive: boolean;
  createdAt?: string;
}

export interface Session {
  user: AdminUser;
  /** Replaces the user shown (after a profile change) */
  setUser(user: AdminUser): void;
  signOut(): Promise<void>;
}

export const SessionContext = createContext<Session | null>(null);

export function useSession(): Session {
  const s = useContext(SessionContext);
  if (!s) throw new Error("not signed in");
  return s;
}
