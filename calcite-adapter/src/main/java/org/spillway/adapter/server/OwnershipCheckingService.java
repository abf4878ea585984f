package org.spillway.adapter.server;

import org.apache.calcite.avatica.remote.AvaticaRuntimeException;
import org.apache.calcite.avatica.remote.LocalService;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Avatica's local service with every request checked against {@link ConnectionOwnership} before the
 * meta sees it: a user may only use connections they opened, and only statements those connections
 * handed out. Requests arrive here from the protobuf and the JSON handler alike.
 *
 * <p>Every request type of {@link org.apache.calcite.avatica.remote.Service} is overridden here (a
 * test fails when Avatica adds one), so none reaches the meta unchecked.
 */
final class OwnershipCheckingService extends LocalService {
  private static final Logger LOG = LoggerFactory.getLogger(OwnershipCheckingService.class);

  private final ConnectionOwnership ownership;

  OwnershipCheckingService(GuardedJdbcMeta meta) {
    super(meta);
    this.ownership = meta.ownership();
  }

  // Connections. Opening binds the id to the user inside the meta, atomically with the open.

  @Override
  public OpenConnectionResponse apply(OpenConnectionRequest request) {
    return super.apply(request);
  }

  @Override
  public CloseConnectionResponse apply(CloseConnectionRequest request) {
    requireOwner(request.connectionId);
    return super.apply(request);
  }

  @Override
  public ConnectionSyncResponse apply(ConnectionSyncRequest request) {
    requireOwner(request.connectionId);
    return super.apply(request);
  }

  @Override
  public DatabasePropertyResponse apply(DatabasePropertyRequest request) {
    requireOwner(request.connectionId);
    return super.apply(request);
  }

  @Override
  public CommitResponse apply(CommitRequest request) {
    requireOwner(request.connectionId);
    return super.apply(request);
  }

  @Override
  public RollbackResponse apply(RollbackRequest request) {
    requireOwner(request.connectionId);
    return super.apply(request);
  }

  // Requests that hand out a new statement id: the id is recorded as the connection's.

  @Override
  public CreateStatementResponse apply(CreateStatementRequest request) {
    requireOwner(request.connectionId);
    final CreateStatementResponse response = super.apply(request);
    ownership.addStatement(request.connectionId, response.statementId);
    return response;
  }

  @Override
  public PrepareResponse apply(PrepareRequest request) {
    requireOwner(request.connectionId);
    final PrepareResponse response = super.apply(request);
    ownership.addStatement(request.connectionId, response.statement.id);
    return response;
  }

  @Override
  public ResultSetResponse apply(CatalogsRequest request) {
    requireOwner(request.connectionId);
    return metadata(request.connectionId, super.apply(request));
  }

  @Override
  public ResultSetResponse apply(SchemasRequest request) {
    requireOwner(request.connectionId);
    return metadata(request.connectionId, super.apply(request));
  }

  @Override
  public ResultSetResponse apply(TablesRequest request) {
    requireOwner(request.connectionId);
    return metadata(request.connectionId, super.apply(request));
  }

  @Override
  public ResultSetResponse apply(TableTypesRequest request) {
    requireOwner(request.connectionId);
    return metadata(request.connectionId, super.apply(request));
  }

  @Override
  public ResultSetResponse apply(TypeInfoRequest request) {
    requireOwner(request.connectionId);
    return metadata(request.connectionId, super.apply(request));
  }

  @Override
  public ResultSetResponse apply(ColumnsRequest request) {
    requireOwner(request.connectionId);
    return metadata(request.connectionId, super.apply(request));
  }

  // Requests on an existing statement.

  @Override
  public ExecuteResponse apply(PrepareAndExecuteRequest request) {
    requireStatement(request.connectionId, request.statementId);
    return super.apply(request);
  }

  @Override
  public ExecuteResponse apply(ExecuteRequest request) {
    requireStatement(request.statementHandle.connectionId, request.statementHandle.id);
    return super.apply(request);
  }

  @Override
  public FetchResponse apply(FetchRequest request) {
    requireStatement(request.connectionId, request.statementId);
    return super.apply(request);
  }

  @Override
  public SyncResultsResponse apply(SyncResultsRequest request) {
    requireStatement(request.connectionId, request.statementId);
    return super.apply(request);
  }

  @Override
  public ExecuteBatchResponse apply(PrepareAndExecuteBatchRequest request) {
    requireStatement(request.connectionId, request.statementId);
    return super.apply(request);
  }

  @Override
  public ExecuteBatchResponse apply(ExecuteBatchRequest request) {
    requireStatement(request.connectionId, request.statementId);
    return super.apply(request);
  }

  @Override
  public CloseStatementResponse apply(CloseStatementRequest request) {
    requireStatement(request.connectionId, request.statementId);
    final CloseStatementResponse response = super.apply(request);
    ownership.removeStatement(request.connectionId, request.statementId);
    return response;
  }

  private ResultSetResponse metadata(String connectionId, ResultSetResponse response) {
    ownership.addStatement(connectionId, response.statementId);
    return response;
  }

  private void requireOwner(String connectionId) {
    try {
      ownership.requireOwner(connectionId, RemoteUserHandler.currentUser());
    } catch (AvaticaRuntimeException e) {
      throw logged(e);
    }
  }

  private void requireStatement(String connectionId, int statementId) {
    try {
      ownership.requireStatement(connectionId, statementId, RemoteUserHandler.currentUser());
    } catch (AvaticaRuntimeException e) {
      throw logged(e);
    }
  }

  /** A refusal may be a stale client or someone trying ids: worth a line with who and from where. */
  private static AvaticaRuntimeException logged(AvaticaRuntimeException refusal) {
    LOG.warn("refused a request of user '{}' from {}: {}", RemoteUserHandler.currentUser(),
        RemoteUserHandler.currentClient(), refusal.getErrorMessage());
    return refusal;
  }
}
