id BIGINT NOT NULL, name STRING, active BOOLEAN, qty INT, price DECIMAL(12, 2), score DOUBLE,
ratio FLOAT, born DATE, wake TIME, created TIMESTAMP, updated TIMESTAMPTZ, uid UUID,
tags ARRAY<STRING>, loc STRUCT<lat DOUBLE, lon DOUBLE>, attrs MAP<STRING, INT>, payload BINARY
