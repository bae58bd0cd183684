CREATE TABLE "orrery_audit_log" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"at" timestamp with time zone DEFAULT now() NOT NULL,
	"who" text NOT NULL,
	"role" text NOT NULL,
	"action" text NOT NULL,
	"target" text DEFAULT '' NOT NULL,
	"input" jsonb,
	"result" text NOT NULL,
	"error" text,
	"before" jsonb,
	"after" jsonb
);
--> statement-breakpoint
CREATE TABLE "orrery_sessions" (
	"id_hash" text PRIMARY KEY NOT NULL,
	"who" text NOT NULL,
	"role" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"expires_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "orrery_users" (
	"name" text PRIMARY KEY NOT NULL,
	"role" text NOT NULL,
	"password_hash" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "orrery_function_rollups" (
	"minute" timestamp with time zone NOT NULL,
	"namespace" text NOT NULL,
	"function" text NOT NULL,
	"requests" bigint DEFAULT 0 NOT NULL,
	"sticky_requests" bigint DEFAULT 0 NOT NULL,
	"missing_keys" bigint DEFAULT 0 NOT NULL,
	"teleports" bigint DEFAULT 0 NOT NULL,
	CONSTRAINT "orrery_function_rollups_namespace_function_minute_pk" PRIMARY KEY("namespace","function","minute")
);
--> statement-breakpoint
CREATE TABLE "orrery_keyspace_rollups" (
	"minute" timestamp with time zone NOT NULL,
	"namespace" text NOT NULL,
	"keyspace" text NOT NULL,
	"keys" integer DEFAULT 0 NOT NULL,
	"bytes" bigint DEFAULT 0 NOT NULL,
	CONSTRAINT "orrery_keyspace_rollups_namespace_keyspace_minute_pk" PRIMARY KEY("namespace","keyspace","minute")
);
--> statement-breakpoint
CREATE INDEX "orrery_audit_log_at" ON "orrery_audit_log" USING btree ("at");--> statement-breakpoint
CREATE INDEX "orrery_audit_log_who_at" ON "orrery_audit_log" USING btree ("who","at");--> statement-breakpoint
CREATE INDEX "orrery_audit_log_action_at" ON "orrery_audit_log" USING btree ("action","at");--> statement-breakpoint
CREATE INDEX "orrery_sessions_expires" ON "orrery_sessions" USING btree ("expires_at");