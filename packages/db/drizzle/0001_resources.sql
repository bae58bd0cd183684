CREATE TABLE "orrery_resource_events" (
	"resource_version" bigserial PRIMARY KEY NOT NULL,
	"kind" text NOT NULL,
	"namespace" text NOT NULL,
	"name" text NOT NULL,
	"type" text NOT NULL,
	"object" jsonb NOT NULL,
	"at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "orrery_resources" (
	"kind" text NOT NULL,
	"namespace" text NOT NULL,
	"name" text NOT NULL,
	"uid" text NOT NULL,
	"resource_version" bigint NOT NULL,
	"generation" integer NOT NULL,
	"metadata" jsonb NOT NULL,
	"spec" jsonb NOT NULL,
	"status" jsonb,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "orrery_resources_kind_namespace_name_pk" PRIMARY KEY("kind","namespace","name")
);
--> statement-breakpoint
CREATE TABLE "orrery_store_state" (
	"key" text PRIMARY KEY NOT NULL,
	"value" bigint NOT NULL
);
--> statement-breakpoint
CREATE INDEX "orrery_resource_events_kind_rv" ON "orrery_resource_events" USING btree ("kind","resource_version");--> statement-breakpoint
CREATE INDEX "orrery_resources_kind_rv" ON "orrery_resources" USING btree ("kind","resource_version");