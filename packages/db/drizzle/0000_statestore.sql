CREATE SEQUENCE "public"."state_version_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1;--> statement-breakpoint
CREATE TABLE "state_entries" (
	"namespace" text NOT NULL,
	"keyspace" text NOT NULL,
	"key" text COLLATE "C" NOT NULL,
	"value" text NOT NULL,
	"bytes" integer NOT NULL,
	"version" bigint NOT NULL,
	"expires_at" bigint,
	CONSTRAINT "state_entries_namespace_keyspace_key_pk" PRIMARY KEY("namespace","keyspace","key")
);
--> statement-breakpoint
CREATE TABLE "state_meta" (
	"namespace" text NOT NULL,
	"keyspace" text NOT NULL,
	"keys" integer DEFAULT 0 NOT NULL,
	CONSTRAINT "state_meta_namespace_keyspace_pk" PRIMARY KEY("namespace","keyspace")
);
--> statement-breakpoint
CREATE INDEX "state_entries_expiry_idx" ON "state_entries" USING btree ("namespace","keyspace","expires_at") WHERE "state_entries"."expires_at" is not null;