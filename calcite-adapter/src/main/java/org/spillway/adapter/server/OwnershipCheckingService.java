package org.spillway.adapter.server;

import java.util.ArrayList;
import java.util.List;
import org.apache.calcite.avatica.Meta;
import org.apache.calcite.avatica.proto.Common;
import org.apache.calcite.avatica.proto.Requests;
import org.apache.calcite.avatica.remote.AvaticaRuntimeException;
import org.apache.calcite.avatica.remote.LocalService;
import org.apache.calcite.avatica.remote.TypedValue;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Avatica's local service with every request checked against {@link ConnectionOwnership} before the
 * meta sees it: a user may only use connections they opened, and only statements those connections
 * handed out. Statements reach clients under random ids, translated here in both directions, so the
 * meta's sequential ids are never seen. Requests arrive here from the protobuf and the JSON handler
 * alike.
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

  // Requests that hand out a new statement: the client gets it under a random id.

  @Override
  public CreateStatementResponse apply(CreateStatementRequest request) {
    requireOwner(request.connectionId);
    final CreateStatementResponse response = super.apply(request);
    return new CreateStatementResponse(response.connectionId,
        ownership.addStatement(request.connectionId, response.statementId), response.rpcMetadata);
  }

  @Override
  public PrepareResponse apply(PrepareRequest request) {
    requireOwner(request.connectionId);
    final PrepareResponse response = super.apply(request);
    final Meta.StatementHandle handle = response.statement;
    return new PrepareResponse(new Meta.StatementHandle(handle.connectionId,
        ownership.addStatement(request.connectionId, handle.id), handle.signature),
        response.rpcMetadata);
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

  // Requests on an existing statement: the client's id is checked and swapped for the meta's, and
  // back in the response.

  @Override
  public ExecuteResponse apply(PrepareAndExecuteRequest request) {
    final int metaId = requireStatement(request.connectionId, request.statementId);
    return withClientId(request.statementId, super.apply(new PrepareAndExecuteRequest(
        request.connectionId, metaId, request.sql, request.maxRowCount,
        request.maxRowsInFirstFrame)));
  }

  @Override
  public ExecuteResponse apply(ExecuteRequest request) {
    final Meta.StatementHandle handle = request.statementHandle;
    final int metaId = requireStatement(handle.connectionId, handle.id);
    return withClientId(handle.id, super.apply(new ExecuteRequest(
        new Meta.StatementHandle(handle.connectionId, metaId, handle.signature),
        request.parameterValues, request.maxRowCount)));
  }

  @Override
  public FetchResponse apply(FetchRequest request) {
    final int metaId = requireStatement(request.connectionId, request.statementId);
    return super.apply(new FetchRequest(request.connectionId, metaId, request.offset,
        request.fetchMaxRowCount));
  }

  @Override
  public SyncResultsResponse apply(SyncResultsRequest request) {
    final int metaId = requireStatement(request.connectionId, request.statementId);
    return super.apply(new SyncResultsRequest(request.connectionId, metaId, request.state,
        request.offset));
  }

  @Override
  public ExecuteBatchResponse apply(PrepareAndExecuteBatchRequest request) {
    final int metaId = requireStatement(request.connectionId, request.statementId);
    return withClientId(request.statementId, super.apply(new PrepareAndExecuteBatchRequest(
        request.connectionId, metaId, request.sqlCommands)));
  }

  @Override
  public ExecuteBatchResponse apply(ExecuteBatchRequest request) {
    final int metaId = requireStatement(request.connectionId, request.statementId);
    return withClientId(request.statementId, super.apply(new ExecuteBatchRequest(
        request.connectionId, metaId, parameterBatches(request))));
  }

  @Override
  public CloseStatementResponse apply(CloseStatementRequest request) {
    final int metaId = requireStatement(request.connectionId, request.statementId);
    final CloseStatementResponse response =
        super.apply(new CloseStatementRequest(request.connectionId, metaId));
    ownership.removeStatement(request.connectionId, request.statementId);
    return response;
  }

  /**
   * The batches of an execute-batch request. A protobuf request carries them in protobuf form, which
   * only Avatica's own package can put into a new request; they are converted to the JSON form, which
   * the meta executes the same way.
   */
  private static List<List<TypedValue>> parameterBatches(ExecuteBatchRequest request) {
    if (!request.hasProtoUpdateBatches()) {
      return request.parameterValues;
    }
    final List<List<TypedValue>> batches = new ArrayList<>();
    for (Requests.UpdateBatch batch : request.getProtoUpdateBatches()) {
      final List<TypedValue> values = new ArrayList<>();
      for (Common.TypedValue value : batch.getParameterValuesList()) {
        values.add(TypedValue.fromProto(value));
      }
      batches.add(values);
    }
    return batches;
  }

  private ResultSetResponse metadata(String connectionId, ResultSetResponse response) {
    return withClientId(ownership.addStatement(connectionId, response.statementId), response);
  }

  private static ResultSetResponse withClientId(int clientId, ResultSetResponse response) {
    return new ResultSetResponse(response.connectionId, clientId, response.ownStatement,
        response.signature, response.firstFrame, response.updateCount, response.rpcMetadata);
  }

  private static ExecuteResponse withClientId(int clientId, ExecuteResponse response) {
    final List<ResultSetResponse> results = new ArrayList<>(response.results.size());
    for (ResultSetResponse result : response.results) {
      results.add(withClientId(clientId, result));
    }
    return new ExecuteResponse(results, response.missingStatement, response.rpcMetadata);
  }

  private static ExecuteBatchResponse withClientId(int clientId, ExecuteBatchResponse response) {
    return new ExecuteBatchResponse(response.connectionId, clientId, response.updateCounts,
        response.missingStatement, response.rpcMetadata);
  }

  private void requireOwner(String connectionId) {
    try {
      ownership.requireOwner(connectionId, RemoteUserHandler.currentUser());
    } catch (AvaticaRuntimeException e) {
      throw logged(e);
    }
  }

  /** Returns the meta's id of the client's statement, or refuses the request. */
  private int requireStatement(String connectionId, int statementId) {
    try {
      return ownership.requireStatement(connectionId, statementId, RemoteUserHandler.currentUser());
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
