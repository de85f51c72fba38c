-- Vault values moved to $VIGIL_HOME/vault.json (0600): the database keeps only the audit of uses.
DROP TABLE vault;
